import type { Scope } from '../../clients/scopes.js';
import type { Database } from '../../db/connection.js';
import { CompiledStatement } from '../../db/direct-statements.js';
import { knexStatements, withDirectTransaction, type TransactionStatements } from '../../db/direct-transaction.js';
import { withTransaction } from '../../db/transaction.js';
import { endGrants } from '../../grants/end-grant.js';
import { revocation, type RevokedReason } from '../../grants/revocation.js';
import { recordLastUse } from './last-used.js';
import { insertPairIn, type IssuedPair, type TokenPair } from './store.js';

/*
 * Refresh rotation (spec: Token pair table; RFC 9700 4.14.2), as row writes. Lock order is parent before child
 * everywhere (here, in recordFirstUse and in the grant-wide UPDATE, which walks ids upwards), so the writers never
 * deadlock one another on one database; a Galera certification conflict is rerun by the transaction helper.
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
 * Its statements are compiled once and run as a direct transaction (src/db/direct-transaction.ts): the refresh grant
 * is the hot path that writes.
 * The successor is bound to `dpopJkt`, the DPoP key of the refresh request (RFC 9449 5), or is a bearer pair.
 */
export async function rotatePair(db: Database, pair: TokenPair, scopes: readonly Scope[], dpopJkt: string | null = null, now = new Date()): Promise<RotationOutcome> {
  const outcome = await withDirectTransaction(db, (tx) => rotateLocked(tx, pair, scopes, dpopJkt, now, null));
  if (outcome.kind !== 'reused') return outcome;
  // Reuse ends the grant in the transaction that found it (rare: through knex, whose builder endGrants uses). The
  // run above wrote nothing; this one locks and reads again, and decides on what it reads.
  const ended = await withTransaction(db, (trx) => rotateLocked(knexStatements(trx), pair, scopes, dpopJkt, now, () => endGrants(trx, pair.siteId, [pair.grantId], 'reuse_detected', now)));
  return ended.kind === 'reused' ? { kind: 'refused', reason: 'rotated' } : ended;
}

/** The pair, or the pair and its parent (parent first), locked, with what rotating decides on. */
const LOCK_PAIRS = new CompiledStatement<number[]>((db, ...ids) => db('token_pairs').whereIn('id', ids).orderBy('id').forUpdate().select('id', 'revoked_at', 'revoked_reason', 'successor_pair_id', 'rotation_counter'));

/**
 * The rotation inside its transaction. A rotated pair presented again is reuse: `endGrant`, when given, ends the
 * grant here; without it the answer is `reused`, and nothing was written.
 */
async function rotateLocked(
  tx: TransactionStatements,
  pair: TokenPair,
  scopes: readonly Scope[],
  dpopJkt: string | null,
  now: Date,
  endGrant: (() => Promise<unknown>) | null,
): Promise<RotationOutcome | { kind: 'reused' }> {
  const ids = pair.parentPairId === null ? [pair.id] : [pair.parentPairId, pair.id];
  const locked = await tx.rows<LockedRow, number[]>(LOCK_PAIRS, ids);
  const current = locked.find((row) => Number(row.id) === pair.id);
  if (!current) return { kind: 'refused', reason: 'revoked' };
  if (current.revoked_at !== null) {
    const reason = current.revoked_reason ?? 'revoked';
    if (reason === 'rotated') {
      if (endGrant === null) return { kind: 'reused' };
      await endGrant();
    }
    return { kind: 'refused', reason };
  }
  const parent = locked.find((row) => Number(row.id) === pair.parentPairId);
  const issued = await insertPairIn(
    tx,
    { grantId: pair.grantId, siteId: pair.siteId, clientRef: pair.clientRef, userId: pair.userId, scopes, resource: pair.resource, schoolId: pair.schoolId, authTime: pair.authTime, parentPairId: pair.id, sid: pair.sid, dpopJkt },
    now,
  );
  await recordRotation(tx, {
    pairId: pair.id,
    successorId: issued.pair.id,
    rotationCounter: current.rotation_counter + 1,
    // Only while S is still its parent's successor: a superseded S never retires the parent a later successor needs.
    receivedParentId: parent && parent.revoked_at === null && parent.successor_pair_id === pair.id ? pair.parentPairId : null,
    // Unused for sure: its first use would have retired S (reason rotated) before S was locked.
    supersededId: current.successor_pair_id,
    now,
  });
  return { kind: 'rotated', issued };
}

/** S points at its successor: the rotation's one change when nothing is retired. */
const POINT_AT_SUCCESSOR = new CompiledStatement<[number, number, number]>((db, successorId, rotationCounter, pairId) =>
  db('token_pairs').where({ id: pairId }).update({ successor_pair_id: successorId, rotation_counter: rotationCounter }),
);

/** S points at its successor and the retired rows (S's received parent, S's superseded successor) are revoked. */
const POINT_AND_RETIRE = new CompiledStatement<[number, number, number, number, number, number, number, Date, ...number[]]>(
  (db, pairA, successorId, pairB, rotationCounter, pairC, receivedParentId, pairD, now, ...ids) =>
    db('token_pairs')
      .whereIn('id', ids)
      .update({
        successor_pair_id: db.raw('CASE WHEN id = ? THEN ? ELSE successor_pair_id END', [pairA, successorId]),
        rotation_counter: db.raw('CASE WHEN id = ? THEN ? ELSE rotation_counter END', [pairB, rotationCounter]),
        // revoked_reason before revoked_at: MySQL evaluates SET left to right, and later assignments see earlier ones.
        revoked_reason: db.raw("CASE WHEN id = ? OR revoked_at IS NOT NULL THEN revoked_reason WHEN id = ? THEN 'rotated' ELSE 'superseded' END", [pairC, receivedParentId]),
        revoked_at: db.raw('CASE WHEN id = ? OR revoked_at IS NOT NULL THEN revoked_at ELSE ? END', [pairD, now]),
      }),
);

/** The rotation's three row changes in one UPDATE by primary key. */
async function recordRotation(
  tx: TransactionStatements,
  change: { pairId: number; successorId: number; rotationCounter: number; receivedParentId: number | null; supersededId: number | null; now: Date },
): Promise<void> {
  const { pairId, successorId, rotationCounter, receivedParentId, supersededId, now } = change;
  const retired = [receivedParentId, supersededId].filter((id): id is number => id !== null);
  if (retired.length === 0) {
    await tx.write(POINT_AT_SUCCESSOR, [successorId, rotationCounter, pairId]);
    return;
  }
  await tx.write(POINT_AND_RETIRE, [pairId, successorId, pairId, rotationCounter, pairId, receivedParentId ?? 0, pairId, now, pairId, ...retired]);
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
