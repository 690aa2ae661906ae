import type { Database } from '../db/connection.js';
import { withTransaction } from '../db/transaction.js';

/**
 * Why a pair stopped working; the refresh grant tells reuse (RFC 9700 4.14.2) from a harmless retry by it.
 * - rotated: its successor was received (first presented to an API, or refreshed); presenting this refresh token again is reuse.
 * - superseded: a retried refresh replaced it before it was ever presented (the lost-response retry).
 * - revoked: the revocation endpoint, the client's deletion, or an operator.
 * - reuse_detected / code_replayed: the whole grant, after a rotated refresh token or a used code came back.
 * - access_removed: the member lost the roles this client needs at the site.
 */
export type RevokedReason = 'rotated' | 'superseded' | 'revoked' | 'reuse_detected' | 'code_replayed' | 'access_removed';

/** The columns that stop a pair: both of its tokens at once, first stamp kept (callers filter on revoked_at IS NULL). */
export function revocation(reason: RevokedReason, now: Date): { revoked_at: Date; revoked_reason: RevokedReason } {
  return { revoked_at: now, revoked_reason: reason };
}

/** Revokes every live pair of a client (its deletion) or of a user at a site. */
export async function revokePairsWhere(db: Database, where: { client_ref?: number; site_id?: number; user_id?: number }, reason: RevokedReason, now = new Date()): Promise<number> {
  return withTransaction(db, (trx) => trx('token_pairs').where(where).whereNull('revoked_at').update(revocation(reason, now)));
}
