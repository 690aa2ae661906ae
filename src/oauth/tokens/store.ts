import type { Knex } from 'knex';
import type { Scope } from '../../clients/scopes.js';
import { requireDate, toDate, type Database } from '../../db/connection.js';
import { randomToken, sha256Hex } from '../../shared/random.js';
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from './lifetimes.js';

/** One token record: an access token and its refresh token with one revocation stamp (spec: Token record). */
export interface TokenPair {
  id: number;
  siteId: number;
  clientRef: number;
  userId: number | null;
  scopes: Scope[];
  resource: string;
  /** Variant A's school_id as issued; null when the token was issued without one. */
  schoolId: number | null;
  accessExpiresAt: Date;
  refreshExpiresAt: Date | null;
  authTime: Date | null;
  firstUsedAt: Date | null;
  revokedAt: Date | null;
  parentPairId: number | null;
  successorPairId: number | null;
  rotationCounter: number;
  createdAt: Date;
}

export interface IssuedPair {
  pair: TokenPair;
  accessToken: string;
  refreshToken: string;
}

interface PairRow {
  id: number;
  site_id: number;
  client_ref: number;
  user_id: number | null;
  access_token_hash: string;
  refresh_token_hash: string | null;
  scope: string;
  resource: string;
  school_id: number | null;
  access_expires_at: unknown;
  refresh_expires_at: unknown;
  auth_time: unknown;
  first_used_at: unknown;
  revoked_at: unknown;
  parent_pair_id: number | null;
  successor_pair_id: number | null;
  rotation_counter: number;
  created_at: unknown;
}

function pairFromRow(row: PairRow): TokenPair {
  return {
    id: row.id,
    siteId: row.site_id,
    clientRef: row.client_ref,
    userId: row.user_id,
    scopes: row.scope.split(' ').filter(Boolean) as Scope[],
    resource: row.resource,
    schoolId: row.school_id,
    accessExpiresAt: requireDate(row.access_expires_at),
    refreshExpiresAt: toDate(row.refresh_expires_at),
    authTime: toDate(row.auth_time),
    firstUsedAt: toDate(row.first_used_at),
    revokedAt: toDate(row.revoked_at),
    parentPairId: row.parent_pair_id,
    successorPairId: row.successor_pair_id,
    rotationCounter: row.rotation_counter,
    createdAt: requireDate(row.created_at),
  };
}

export interface NewPair {
  siteId: number;
  clientRef: number;
  userId: number | null;
  scopes: readonly Scope[];
  resource: string;
  schoolId: number | null;
  authTime: Date | null;
  parentPairId?: number;
}

/** Mints a pair: 256-bit random tokens, stored only as SHA-256 hashes. */
export async function insertPair(db: Database | Knex.Transaction, input: NewPair, now = new Date()): Promise<IssuedPair> {
  const accessToken = `sga_${randomToken(32)}`;
  const refreshToken = `sgr_${randomToken(32)}`;
  const [id] = await db('token_pairs').insert({
    site_id: input.siteId,
    client_ref: input.clientRef,
    user_id: input.userId,
    access_token_hash: sha256Hex(accessToken),
    refresh_token_hash: sha256Hex(refreshToken),
    scope: input.scopes.join(' '),
    resource: input.resource,
    school_id: input.schoolId,
    access_expires_at: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000),
    refresh_expires_at: new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000),
    auth_time: input.authTime,
    parent_pair_id: input.parentPairId ?? null,
    created_at: now,
  });
  const row = await db<PairRow>('token_pairs').where({ id: Number(id) }).first();
  if (!row) throw new Error('token pair vanished after insert');
  return { pair: pairFromRow(row), accessToken, refreshToken };
}

export async function findPairByAccessToken(db: Database, accessToken: string): Promise<TokenPair | null> {
  const row = await db<PairRow>('token_pairs').where({ access_token_hash: sha256Hex(accessToken) }).first();
  return row ? pairFromRow(row) : null;
}

export async function findPairByRefreshToken(db: Database, refreshToken: string): Promise<TokenPair | null> {
  const row = await db<PairRow>('token_pairs').where({ refresh_token_hash: sha256Hex(refreshToken) }).first();
  return row ? pairFromRow(row) : null;
}

export async function getPair(db: Database | Knex.Transaction, id: number): Promise<TokenPair | null> {
  const row = await db<PairRow>('token_pairs').where({ id }).first();
  return row ? pairFromRow(row) : null;
}

/** Stamps the pair revoked (both tokens at once); a pair already revoked keeps its first stamp. */
export async function revokePair(db: Database | Knex.Transaction, pairId: number, now = new Date()): Promise<boolean> {
  const updated = await db('token_pairs').where({ id: pairId }).whereNull('revoked_at').update({ revoked_at: now });
  return updated > 0;
}

/** Revokes every live pair of a client (its deletion) or of a user at a site. */
export async function revokePairsWhere(db: Database, where: { client_ref?: number; site_id?: number; user_id?: number }, now = new Date()): Promise<number> {
  return db('token_pairs').where(where).whereNull('revoked_at').update({ revoked_at: now });
}

/**
 * Spec, Token pair table: a refreshed pair's predecessor stays live until the new access token is first presented to
 * an API; that first presentation revokes the predecessor. The compare-and-set on first_used_at makes it happen once.
 */
export async function recordFirstUse(db: Database, pair: TokenPair, now = new Date()): Promise<void> {
  if (pair.firstUsedAt !== null) return;
  await db.transaction(async (trx) => {
    const first = await trx('token_pairs').where({ id: pair.id }).whereNull('first_used_at').update({ first_used_at: now });
    if (first > 0 && pair.parentPairId !== null) await revokePair(trx, pair.parentPairId, now);
  });
}

export type RotationOutcome = { kind: 'rotated'; issued: IssuedPair } | { kind: 'conflict' };

/**
 * The refresh grant's write: mints the successor of `pair` and, in the same transaction, compare-and-sets the
 * predecessor's rotation counter, so two concurrent refreshes of one token cannot both leave a live successor
 * (the loser's insert rolls back). A retry after a lost response supersedes the earlier successor, which has never
 * been presented to an API (or the predecessor would be revoked), so that successor is revoked.
 */
export async function rotatePair(db: Database, pair: TokenPair, scopes: readonly Scope[], now = new Date()): Promise<RotationOutcome> {
  return db.transaction(async (trx) => {
    // Lock the predecessor first: inserting the successor takes a shared lock on it (foreign key), and two such
    // shared locks upgrading to write locks would deadlock on MySQL. With the row lock the second refresh waits here.
    const current = await trx<PairRow>('token_pairs').where({ id: pair.id }).forUpdate().first();
    if (!current || current.rotation_counter !== pair.rotationCounter || current.revoked_at !== null) return { kind: 'conflict' as const };
    const issued = await insertPair(
      trx,
      { siteId: pair.siteId, clientRef: pair.clientRef, userId: pair.userId, scopes, resource: pair.resource, schoolId: pair.schoolId, authTime: pair.authTime, parentPairId: pair.id },
      now,
    );
    const claimed = await trx('token_pairs')
      .where({ id: pair.id, rotation_counter: pair.rotationCounter })
      .whereNull('revoked_at')
      .update({ successor_pair_id: issued.pair.id, rotation_counter: pair.rotationCounter + 1 });
    // The compare-and-set stands even where the row lock is a no-op (SQLite serialises writers instead).
    if (claimed === 0) throw new Error(`token pair ${pair.id} changed under its row lock`);
    if (pair.successorPairId !== null) await revokePair(trx, pair.successorPairId, now);
    return { kind: 'rotated' as const, issued };
  });
}

/**
 * Revokes a pair and every pair refreshed from it, at any depth: what a replayed authorization code issued
 * (RFC 6749 4.1.2: "SHOULD revoke ... all tokens previously issued based on that authorization code").
 */
export async function revokeLineage(db: Database, rootPairId: number, now = new Date()): Promise<number> {
  let frontier = [rootPairId];
  const all: number[] = [];
  while (frontier.length > 0) {
    all.push(...frontier);
    const children: Array<{ id: number }> = await db('token_pairs').whereIn('parent_pair_id', frontier).select('id');
    frontier = children.map((child) => child.id).filter((id) => !all.includes(id));
  }
  return db('token_pairs').whereIn('id', all).whereNull('revoked_at').update({ revoked_at: now });
}
