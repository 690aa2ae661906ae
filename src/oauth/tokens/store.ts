import type { Knex } from 'knex';
import type { Scope } from '../../clients/scopes.js';
import { requireDate, toDate, type Database } from '../../db/connection.js';
import { compiledInsert } from '../../db/direct-statements.js';
import type { TransactionStatements } from '../../db/direct-transaction.js';
import { withTransaction } from '../../db/transaction.js';
import { randomToken } from '../../shared/random.js';
import { revocation, type RevokedReason } from '../../grants/revocation.js';
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from './lifetimes.js';
import { mintToken, tokenKey } from './token-keys.js';

/**
 * One token record: an access token and its refresh token with one revocation stamp (spec: Token record). Pairs
 * refreshed from one another share the grant (`grantId`) of the authorization code the first was issued for.
 */
export interface TokenPair {
  id: number;
  grantId: string;
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
  /** Last presented to an API or refreshed, kept to the hour (connected apps); null until then. */
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  revokedReason: RevokedReason | null;
  parentPairId: number | null;
  successorPairId: number | null;
  rotationCounter: number;
  createdAt: Date;
  /** The sign-in session the grant was approved in (its `sid`, OIDC Back-Channel Logout 1.0 2.1); null before sids. */
  sid: string | null;
  /** RFC 9449 6: the SHA-256 thumbprint of the key the access token (and a public client's refresh token) is bound to; null: a bearer pair. */
  dpopJkt: string | null;
}

export interface IssuedPair {
  pair: TokenPair;
  accessToken: string;
  /** Null for a pair issued without one (client_credentials). */
  refreshToken: string | null;
}

export interface PairRow {
  id: number;
  grant_id: string;
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
  last_used_at: unknown;
  revoked_at: unknown;
  revoked_reason: RevokedReason | null;
  parent_pair_id: number | null;
  successor_pair_id: number | null;
  rotation_counter: number;
  created_at: unknown;
  sid: string | null;
  dpop_jkt: string | null;
}

/** What protected resources check of an access token's pair, and what marking its first use needs. */
export type AccessTokenPair = Pick<TokenPair, 'id' | 'siteId' | 'userId' | 'scopes' | 'resource' | 'schoolId' | 'accessExpiresAt' | 'revokedAt' | 'firstUsedAt' | 'lastUsedAt' | 'parentPairId' | 'dpopJkt'>;

/** The columns an AccessTokenPair is read from (a presented access token's hot path reads no more). */
export const ACCESS_PAIR_COLUMNS = ['id', 'site_id', 'user_id', 'scope', 'resource', 'school_id', 'access_expires_at', 'revoked_at', 'first_used_at', 'last_used_at', 'parent_pair_id', 'dpop_jkt'] as const satisfies ReadonlyArray<keyof PairRow>;

export function accessPairFromRow(row: Pick<PairRow, (typeof ACCESS_PAIR_COLUMNS)[number]>): AccessTokenPair {
  return {
    id: row.id,
    siteId: row.site_id,
    userId: row.user_id,
    // RFC 6749 3.3: space-separated.
    scopes: row.scope.split(' ').filter(Boolean) as Scope[],
    resource: row.resource,
    schoolId: row.school_id,
    accessExpiresAt: requireDate(row.access_expires_at),
    revokedAt: toDate(row.revoked_at),
    firstUsedAt: toDate(row.first_used_at),
    lastUsedAt: toDate(row.last_used_at),
    parentPairId: row.parent_pair_id,
    dpopJkt: row.dpop_jkt,
  };
}

export function pairFromRow(row: PairRow): TokenPair {
  // Object.assign, not a spread followed by more properties: on Node 20 each property after a spread costs about a
  // microsecond (docs/performance.md, "Object spreads on Node 20").
  return Object.assign(accessPairFromRow(row), {
    grantId: row.grant_id,
    clientRef: row.client_ref,
    refreshExpiresAt: toDate(row.refresh_expires_at),
    authTime: toDate(row.auth_time),
    revokedReason: row.revoked_reason,
    successorPairId: row.successor_pair_id,
    rotationCounter: row.rotation_counter,
    createdAt: requireDate(row.created_at),
    sid: row.sid ?? null,
  });
}

export interface NewPair {
  grantId: string;
  siteId: number;
  clientRef: number;
  userId: number | null;
  scopes: readonly Scope[];
  resource: string;
  schoolId: number | null;
  authTime: Date | null;
  parentPairId?: number;
  /** The session the grant was approved in; every pair of a grant carries its code's. */
  sid?: string | null;
  /** The DPoP key the new pair is bound to (RFC 9449 5); absent or null for a bearer pair. Every grant passes its proof's. */
  dpopJkt?: string | null;
  /** RFC 6749 4.4.3: client_credentials issues no refresh token. */
  withoutRefreshToken?: boolean;
}

/** A new grant's id: one per authorization code, shared by every pair refreshed from the code's first pair. */
export function newGrantId(): string {
  return randomToken(16);
}

/** The columns a new pair is inserted with (the others keep their defaults). */
const INSERTED_COLUMNS = [
  'grant_id',
  'site_id',
  'client_ref',
  'user_id',
  'access_token_hash',
  'refresh_token_hash',
  'scope',
  'resource',
  'school_id',
  'access_expires_at',
  'refresh_expires_at',
  'auth_time',
  'parent_pair_id',
  'sid',
  'dpop_jkt',
  'last_used_at',
  'created_at',
] as const satisfies ReadonlyArray<keyof PairRow>;

type InsertedRow = Record<(typeof INSERTED_COLUMNS)[number], Knex.Value>;

/** The pair INSERT, compiled once per dialect: the refresh grant's and the code exchange's transactions bind it. */
const INSERT_PAIR = compiledInsert('token_pairs', INSERTED_COLUMNS);

/** A new pair's row and what its caller is handed once the row has its id: tokens with 256 random bits, stored only as their keys (token-keys.ts). */
function mintPair(input: NewPair, now: Date): { row: InsertedRow; issued(id: number): IssuedPair } {
  const accessToken = mintToken('sga_', now);
  const refreshToken = input.withoutRefreshToken === true ? null : mintToken('sgr_', now);
  const accessExpiresAt = new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000);
  const refreshExpiresAt = refreshToken === null ? null : new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000);
  const parentPairId = input.parentPairId ?? null;
  // A refresh is a use of the grant (connected apps' "last used"); a first pair is unused until presented.
  const lastUsedAt = parentPairId === null ? null : now;
  const row: InsertedRow = {
    grant_id: input.grantId,
    site_id: input.siteId,
    client_ref: input.clientRef,
    user_id: input.userId,
    access_token_hash: tokenKey(accessToken),
    refresh_token_hash: refreshToken === null ? null : tokenKey(refreshToken),
    scope: input.scopes.join(' '),
    resource: input.resource,
    school_id: input.schoolId,
    access_expires_at: accessExpiresAt,
    refresh_expires_at: refreshExpiresAt,
    auth_time: input.authTime,
    parent_pair_id: parentPairId,
    sid: input.sid ?? null,
    dpop_jkt: input.dpopJkt ?? null,
    last_used_at: lastUsedAt,
    created_at: now,
  };
  const issued = (id: number): IssuedPair => ({
    pair: {
      id,
      grantId: input.grantId,
      siteId: input.siteId,
      clientRef: input.clientRef,
      userId: input.userId,
      scopes: [...input.scopes],
      resource: input.resource,
      schoolId: input.schoolId,
      accessExpiresAt,
      refreshExpiresAt,
      authTime: input.authTime,
      firstUsedAt: null,
      lastUsedAt,
      revokedAt: null,
      revokedReason: null,
      parentPairId,
      successorPairId: null,
      rotationCounter: 0,
      createdAt: now,
      sid: input.sid ?? null,
      dpopJkt: input.dpopJkt ?? null,
    },
    accessToken,
    refreshToken,
  });
  return { row, issued };
}

/** Mints a pair (mintPair) and inserts it. */
export async function insertPair(db: Database | Knex.Transaction, input: NewPair, now = new Date()): Promise<IssuedPair> {
  const minted = mintPair(input, now);
  const [id] = await db('token_pairs').insert(minted.row);
  return minted.issued(Number(id));
}

/** insertPair inside a direct transaction (src/db/direct-transaction.ts), by the compiled INSERT. */
export async function insertPairIn(tx: TransactionStatements, input: NewPair, now: Date): Promise<IssuedPair> {
  const minted = mintPair(input, now);
  const { insertId } = await tx.write(INSERT_PAIR.statement, INSERT_PAIR.values(minted.row));
  return minted.issued(insertId);
}

export async function findPairByAccessToken(db: Database, accessToken: string): Promise<TokenPair | null> {
  const row = await db<PairRow>('token_pairs').where({ access_token_hash: tokenKey(accessToken) }).first();
  return row ? pairFromRow(row) : null;
}

export async function findPairByRefreshToken(db: Database, refreshToken: string): Promise<TokenPair | null> {
  const row = await db<PairRow>('token_pairs').where({ refresh_token_hash: tokenKey(refreshToken) }).first();
  return row ? pairFromRow(row) : null;
}

/**
 * Revokes every live pair of a grant in one statement (RFC 7009 2.1: revoking a token SHOULD revoke the grant; RFC
 * 9700 4.14.2 on refresh-token reuse; RFC 6749 4.1.2 on a replayed code). Pairs already revoked keep their reason.
 */
export async function revokeGrant(db: Database, grantId: string, reason: RevokedReason, now = new Date()): Promise<number> {
  return withTransaction(db, (trx) => trx('token_pairs').where({ grant_id: grantId }).whereNull('revoked_at').update(revocation(reason, now)));
}
