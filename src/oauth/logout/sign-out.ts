import type { SignInSession } from '../../accounts/sessions.js';
import type { Database } from '../../db/connection.js';
import { withTransaction } from '../../db/transaction.js';
import { dedupe, queueLogouts, type QueuedLogout } from '../../grants/logout-outbox.js';

interface SessionGrantRow {
  client_ref: number;
  user_id: number;
  backchannel_logout_uri: string;
}

/**
 * Ends a sign-in session (its cookie stops working at once) and, in the same transaction, queues a back-channel
 * logout notice (sub and sid) for every client with a backchannel_logout_uri that holds a live grant approved in this
 * session (OIDC Back-Channel Logout 1.0 2.5). Answers false when the session had already ended (nothing queued).
 *
 * The grants themselves stay: every grant here is a standing approval, kept "until it is revoked" as the consent page
 * says (in Back-Channel Logout 2.7 terms, refresh tokens that outlive the session, which the OP need not revoke). The
 * notice tells each client to end its own session with the member; the member ends a grant under connected apps.
 */
export async function signOutSession(db: Database, session: Pick<SignInSession, 'id' | 'siteId' | 'sid'>, now = new Date()): Promise<boolean> {
  return withTransaction(db, async (trx) => {
    const ended = await trx('sign_in_sessions').where({ id: session.id }).whereNull('revoked_at').update({ revoked_at: now, updated_at: now });
    if (ended === 0 || session.sid === null) return ended > 0;
    const rows: SessionGrantRow[] = await trx('token_pairs')
      .join('oauth_clients', 'oauth_clients.id', 'token_pairs.client_ref')
      .where({ 'token_pairs.site_id': session.siteId, 'token_pairs.sid': session.sid })
      .whereNull('token_pairs.revoked_at')
      .whereNotNull('token_pairs.user_id')
      .whereNotNull('oauth_clients.backchannel_logout_uri')
      .distinct('token_pairs.client_ref', 'token_pairs.user_id', 'oauth_clients.backchannel_logout_uri');
    const logouts: QueuedLogout[] = rows.map((row) => ({
      siteId: session.siteId,
      clientRef: Number(row.client_ref),
      backchannelLogoutUri: row.backchannel_logout_uri,
      subject: { sub: String(row.user_id), sid: session.sid },
    }));
    await queueLogouts(trx, dedupe(logouts), now);
    return true;
  });
}
