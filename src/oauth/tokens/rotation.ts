import type { Scope } from '../../clients/scopes.js';
import type { Database } from '../../db/connection.js';
import { withTransaction } from '../../db/transaction.js';
import { endGrants } from '../../grants/end-grant.js';
import { revocation, type RevokedReason } from '../../grants/revocation.js';
import { recordLastUse } from './last-used.js';
import { insertPair, type IssuedPair, type TokenPair } from './store.js';

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

interface LockedRow {
  id: number;
  revoked_at: unknown;
  revoked_reason: RevokedReason | null;
  successor_pair_id: number | null;
  rotation_counter: number;
}

/**
 * The refresh grant's write, in one short transaction of four statements: lock S and its parent and read their state
 * (one locking read, parent first by id), mint the successor, then one UPDATE by primary key that points S at the
 * successor, retires S's parent (presenting S's refresh token proves S was received) and supersedes S's earlier
 * unused successor. Concurrent refreshes of S queue on the row lock and each supersedes the one before, so exactly
 * one successor is live whatever the interleaving. (A compare-and-set on rotation_counter would decide in one
 * statement too, but every loser would have to read and try again: N concurrent refreshes would cost N² statements.)
 * Rows are only ever named by primary key: a range over parent_pair_id would take gap locks that deadlock with the
 * successors other refreshes insert. On Galera the loser of a certification conflict reruns the whole transaction.
 * The successor is bound to `dpopJkt`, the DPoP key of the refresh request (RFC 9449 5), or is a bearer pair.
 */
export async function rotatePair(db: Database, pair: TokenPair, scopes: readonly Scope[], dpopJkt: string | null = null, now = new Date()): Promise<RotationOutcome> {
  return withTransaction(db, async (trx) => {
    const ids = pair.parentPairId === null ? [pair.id] : [pair.parentPairId, pair.id];
    const locked: LockedRow[] = await trx('token_pairs').whereIn('id', ids).orderBy('id').forUpdate().select('id', 'revoked_at', 'revoked_reason', 'successor_pair_id', 'rotation_counter');
    const current = locked.find((row) => Number(row.id) === pair.id);
    if (!current) return { kind: 'refused' as const, reason: 'revoked' as const };
    if (current.revoked_at !== null) {
      const reason = current.revoked_reason ?? 'revoked';
      if (reason === 'rotated') await endGrants(trx, pair.siteId, [pair.grantId], 'reuse_detected', now);
      return { kind: 'refused' as const, reason };
    }
    const parent = locked.find((row) => Number(row.id) === pair.parentPairId);
    const issued = await insertPair(
      trx,
      { grantId: pair.grantId, siteId: pair.siteId, clientRef: pair.clientRef, userId: pair.userId, scopes, resource: pair.resource, schoolId: pair.schoolId, authTime: pair.authTime, parentPairId: pair.id, sid: pair.sid, dpopJkt },
      now,
    );
    await recordRotation(trx, {
      pairId: pair.id,
      successorId: issued.pair.id,
      rotationCounter: current.rotation_counter + 1,
      // Only while S is still its parent's successor: a superseded S never retires the parent a later successor needs.
      receivedParentId: parent && parent.revoked_at === null && parent.successor_pair_id === pair.id ? pair.parentPairId : null,
      // Unused for sure: its first use would have retired S (reason rotated) before S was locked.
      supersededId: current.successor_pair_id,
      now,
    });
    return { kind: 'rotated' as const, issued };
  });
}

/** The rotation's three row changes in one UPDATE by primary key. */
async function recordRotation(
  trx: Database,
  change: { pairId: number; successorId: number; rotationCounter: number; receivedParentId: number | null; supersededId: number | null; now: Date },
): Promise<void> {
  const { pairId, successorId, rotationCounter, receivedParentId, supersededId, now } = change;
  const retired = [receivedParentId, supersededId].filter((id): id is number => id !== null);
  if (retired.length === 0) {
    await trx('token_pairs').where({ id: pairId }).update({ successor_pair_id: successorId, rotation_counter: rotationCounter });
    return;
  }
  await trx('token_pairs')
    .whereIn('id', [pairId, ...retired])
    .update({
      successor_pair_id: trx.raw('CASE WHEN id = ? THEN ? ELSE successor_pair_id END', [pairId, successorId]),
      rotation_counter: trx.raw('CASE WHEN id = ? THEN ? ELSE rotation_counter END', [pairId, rotationCounter]),
      // revoked_reason before revoked_at: MySQL evaluates SET left to right, and later assignments see earlier ones.
      revoked_reason: trx.raw("CASE WHEN id = ? OR revoked_at IS NOT NULL THEN revoked_reason WHEN id = ? THEN 'rotated' ELSE 'superseded' END", [pairId, receivedParentId ?? 0]),
      revoked_at: trx.raw('CASE WHEN id = ? OR revoked_at IS NOT NULL THEN revoked_at ELSE ? END', [pairId, now]),
    });
}

/**
 * Spec, Token pair table: a refreshed pair's predecessor stays live until the new access token is first presented
 * to an API; that first presentation revokes the predecessor, once (compare-and-set on first_used_at). Answers false
 * when the pair was revoked after the caller read it (superseded or its grant revoked), so the caller refuses it.
 * The first use also stamps last_used_at in the same UPDATE; later presentations move it at most hourly (last-used.ts).
 */
export async function recordFirstUse(db: Database, pair: Pick<TokenPair, 'id' | 'firstUsedAt' | 'lastUsedAt' | 'parentPairId'>, now = new Date()): Promise<boolean> {
  if (pair.firstUsedAt !== null) {
    await recordLastUse(db, pair, now);
    return true;
  }
  const { parentPairId } = pair;
  if (parentPairId === null) {
    await db('token_pairs').where({ id: pair.id }).whereNull('first_used_at').update({ first_used_at: now, last_used_at: now });
    return true;
  }
  return withTransaction(db, async (trx) => {
    // Parent first (lock order); only while this pair is still its parent's successor, so a superseded pair never
    // revokes the parent a later successor depends on.
    await trx('token_pairs').where({ id: parentPairId, successor_pair_id: pair.id }).whereNull('revoked_at').update(revocation('rotated', now));
    const marked = await trx('token_pairs').where({ id: pair.id }).whereNull('first_used_at').whereNull('revoked_at').update({ first_used_at: now, last_used_at: now });
    if (marked > 0) return true;
    const current: { revoked_at: unknown } | undefined = await trx('token_pairs').where({ id: pair.id }).first('revoked_at');
    return current !== undefined && current.revoked_at === null;
  });
}
