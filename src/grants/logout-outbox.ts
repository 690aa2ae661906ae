import type { Database } from '../db/connection.js';

/**
 * The back-channel logout outbox (table logout_deliveries): a logout notice is queued in the transaction that ends
 * the member's session or grant and delivered later by the delivery job (OIDC Back-Channel Logout 1.0 2.5), so the
 * member's request never waits on a client's server.
 *
 * The row's `logout_token` column holds the notice's subject claims as JSON ({"sub", "sid"}), not a signed token: the
 * token is signed at each attempt with a fresh iat, exp and jti, because a logout token lives two minutes (2.4) while
 * retries run for about an hour, and the site's signing key may rotate meanwhile.
 */
export interface LogoutSubject {
  /** The member's `sub`, as in their id_tokens. */
  sub: string;
  /** The sign-in session (`sid` of the id_token) the notice ends; null when the grant predates sessions with a sid. */
  sid: string | null;
}

export interface QueuedLogout {
  siteId: number;
  clientRef: number;
  backchannelLogoutUri: string;
  subject: LogoutSubject;
}

/** Queues one notice per client; call inside the transaction that ends the session or grant. */
export async function queueLogouts(trx: Database, logouts: readonly QueuedLogout[], now = new Date()): Promise<number> {
  if (logouts.length === 0) return 0;
  await trx('logout_deliveries').insert(
    logouts.map((logout) => ({
      site_id: logout.siteId,
      client_ref: logout.clientRef,
      backchannel_logout_uri: logout.backchannelLogoutUri,
      logout_token: JSON.stringify({ sub: logout.subject.sub, sid: logout.subject.sid }),
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
    })),
  );
  return logouts.length;
}

interface GrantClientRow {
  grant_id: string;
  client_ref: number;
  user_id: number | null;
  sid: string | null;
  backchannel_logout_uri: string | null;
}

/**
 * The notices due when the given grants end: one per grant whose client registered a backchannel_logout_uri and that
 * was issued to a member (a machine client's grant has no session to end). Reads one pair per grant; every pair of a
 * grant carries the same client, member and sid.
 */
export async function logoutsForGrants(trx: Database, siteId: number, grantIds: readonly string[]): Promise<QueuedLogout[]> {
  if (grantIds.length === 0) return [];
  const rows: GrantClientRow[] = await trx('token_pairs')
    .join('oauth_clients', 'oauth_clients.id', 'token_pairs.client_ref')
    .where('token_pairs.site_id', siteId)
    .whereIn('token_pairs.grant_id', [...grantIds])
    .whereNotNull('oauth_clients.backchannel_logout_uri')
    .whereNotNull('token_pairs.user_id')
    .select('token_pairs.grant_id', 'token_pairs.client_ref', 'token_pairs.user_id', 'token_pairs.sid', 'oauth_clients.backchannel_logout_uri');
  const byGrant = new Map<string, QueuedLogout>();
  for (const row of rows) {
    if (byGrant.has(row.grant_id) || row.user_id === null || !row.backchannel_logout_uri) continue;
    byGrant.set(row.grant_id, {
      siteId,
      clientRef: Number(row.client_ref),
      backchannelLogoutUri: row.backchannel_logout_uri,
      subject: { sub: String(row.user_id), sid: row.sid ?? null },
    });
  }
  return dedupe([...byGrant.values()]);
}

/** One notice per client and subject: several grants of one client in one session end with one logout token. */
export function dedupe(logouts: readonly QueuedLogout[]): QueuedLogout[] {
  const seen = new Map<string, QueuedLogout>();
  for (const logout of logouts) seen.set(`${logout.clientRef} ${logout.subject.sub} ${logout.subject.sid ?? ''}`, logout);
  return [...seen.values()];
}
