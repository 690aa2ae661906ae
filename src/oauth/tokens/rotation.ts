import type { Scope } from '../../clients/scopes.js';
import type { Database } from '../../db/connection.js';
import { withTransaction } from '../../db/transaction.js';
import { insertPair, revocation, revokeGrant, type IssuedPair, type RevokedReason, type TokenPair } from './store.js';

/*
 * Refresh rotation (spec: Token pair table; RFC 9700 4.14.2), as row writes. Lock order is parent before child
 * everywhere (here, in recordFirstUse and in the grant-wide UPDATE, which walks ids upwards), so the writers never
 * deadlock one another on one database; a Galera certification conflict is rerun by withTransaction.
 *
 * - Refreshing S mints S' and makes it S's successor. An earlier successor of S that was never presented is
 *   superseded: that is the lost-response retry, which stays possible until a successor is received.
 * - A successor is received when its access token is first presented to an API or its refresh token is refreshed;
 *   either revokes its parent (reason `rotated`).
 * - A rotated refresh token presented again is reuse: every pair of the grant is revoked (`reuse_detected`).
 */

export type RotationOutcome = { kind: 'rotated'; issued: IssuedPair } | { kind: 'refused'; reason: RevokedReason };

/**
 * The refresh grant's write, in one transaction: revoke S's parent (presenting S's refresh token proves S was
 * received), lock S and re-read its state, mint the successor, point S at it, and supersede S's earlier unused
 * successor. Concurrent refreshes of S queue on S's row lock and each supersedes the one before, so exactly one
 * successor is live whatever the interleaving; on Galera the loser of a certification conflict reruns the whole
 * transaction and then queues the same way.
 */
export async function rotatePair(db: Database, pair: TokenPair, scopes: readonly Scope[], now = new Date()): Promise<RotationOutcome> {
  return withTransaction(db, async (trx) => {
    if (pair.parentPairId !== null) {
      await trx('token_pairs').where({ id: pair.parentPairId, successor_pair_id: pair.id }).whereNull('revoked_at').update(revocation('rotated', now));
    }
    const current: { revoked_at: unknown; revoked_reason: RevokedReason | null; successor_pair_id: number | null; rotation_counter: number } | undefined = await trx('token_pairs')
      .where({ id: pair.id })
      .forUpdate()
      .first('revoked_at', 'revoked_reason', 'successor_pair_id', 'rotation_counter');
    if (!current) return { kind: 'refused' as const, reason: 'revoked' as const };
    if (current.revoked_at !== null) {
      const reason = current.revoked_reason ?? 'revoked';
      if (reason === 'rotated') await revokeGrant(trx, pair.grantId, 'reuse_detected', now);
      return { kind: 'refused' as const, reason };
    }
    const issued = await insertPair(
      trx,
      { grantId: pair.grantId, siteId: pair.siteId, clientRef: pair.clientRef, userId: pair.userId, scopes, resource: pair.resource, schoolId: pair.schoolId, authTime: pair.authTime, parentPairId: pair.id },
      now,
    );
    await trx('token_pairs').where({ id: pair.id }).update({ successor_pair_id: issued.pair.id, rotation_counter: current.rotation_counter + 1 });
    if (current.successor_pair_id !== null) {
      // Unused for sure: its first use would have revoked S (reason rotated) before we locked S.
      await trx('token_pairs').where({ id: current.successor_pair_id }).whereNull('revoked_at').update(revocation('superseded', now));
    }
    return { kind: 'rotated' as const, issued };
  });
}

/**
 * Spec, Token pair table: a refreshed pair's predecessor stays live until the new access token is first presented
 * to an API; that first presentation revokes the predecessor, once (compare-and-set on first_used_at). Answers false
 * when the pair was revoked after the caller read it (superseded or its grant revoked), so the caller refuses it.
 */
export async function recordFirstUse(db: Database, pair: TokenPair, now = new Date()): Promise<boolean> {
  if (pair.firstUsedAt !== null) return true;
  const { parentPairId } = pair;
  if (parentPairId === null) {
    await db('token_pairs').where({ id: pair.id }).whereNull('first_used_at').update({ first_used_at: now });
    return true;
  }
  return withTransaction(db, async (trx) => {
    // Parent first (lock order); only while this pair is still its parent's successor, so a superseded pair never
    // revokes the parent a later successor depends on.
    await trx('token_pairs').where({ id: parentPairId, successor_pair_id: pair.id }).whereNull('revoked_at').update(revocation('rotated', now));
    const marked = await trx('token_pairs').where({ id: pair.id }).whereNull('first_used_at').whereNull('revoked_at').update({ first_used_at: now });
    if (marked > 0) return true;
    const current: { revoked_at: unknown } | undefined = await trx('token_pairs').where({ id: pair.id }).first('revoked_at');
    return current !== undefined && current.revoked_at === null;
  });
}
