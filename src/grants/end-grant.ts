import type { Knex } from 'knex';
import type { Database } from '../db/connection.js';
import { withTransaction } from '../db/transaction.js';
import type { Site } from '../sites/sites.js';
import { revocation, type RevokedReason } from './revocation.js';
import { logoutsForGrants, queueLogouts } from './logout-outbox.js';

/**
 * Ends a grant: revokes every live pair of it (RFC 7009 2.1) and, in the same transaction, queues the back-channel
 * logout notice for its client when the client registered a backchannel_logout_uri (OIDC Back-Channel Logout 1.0
 * 2.5: the OP notifies RPs when the session they rely on ends). A grant already ended queues nothing again. Inside
 * another transaction it joins it; otherwise a conflict reruns the whole of it.
 */
export async function endGrant(db: Database, site: Site, grantId: string, reason: RevokedReason, now = new Date()): Promise<void> {
  await endGrants(db, site.id, [grantId], reason, now);
}

/** endGrant for several grants of one site at once; answers how many pairs were revoked. */
export async function endGrants(db: Database, siteId: number, grantIds: readonly string[], reason: RevokedReason, now = new Date()): Promise<number> {
  if (grantIds.length === 0) return 0;
  return endGrantsWhere(db, siteId, (q) => q.whereIn('grant_id', [...grantIds]), reason, now);
}

/**
 * Ends every grant at a site with a live pair that `where` selects (a member's grants, a client's, those of the
 * clients a member may no longer use), with their notices. Whole grants end: a grant's pairs share client and member.
 */
export async function endGrantsWhere(db: Database, siteId: number, where: (query: Knex.QueryBuilder) => void, reason: RevokedReason, now = new Date()): Promise<number> {
  return withTransaction(db, async (trx) => {
    // Read the grants that are still live before revoking them: only those owe a notice.
    const query = trx('token_pairs').where({ site_id: siteId }).whereNull('revoked_at');
    where(query);
    const live: Array<{ grant_id: string }> = await query.distinct('grant_id');
    if (live.length === 0) return 0;
    const liveIds = live.map((row) => row.grant_id);
    const revoked = await trx('token_pairs').where({ site_id: siteId }).whereIn('grant_id', liveIds).whereNull('revoked_at').update(revocation(reason, now));
    await queueLogouts(trx, await logoutsForGrants(trx, siteId, liveIds), now);
    return revoked;
  });
}
