import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db/connection.js';
import { mintToken, tokenKey } from '../../src/oauth/tokens/token-keys.js';
import { createSite, type Site } from '../../src/sites/sites.js';
import { makeClient, makeUser } from './oauth-fixtures.js';

/**
 * Rows of every kind the prune looks at, written straight into the tables with the times a test needs (expired a
 * year ago, revoked yesterday, …), so the housekeeping tests do not have to wait for anything to expire.
 */

export const DAY = 24 * 60 * 60 * 1000;

export function ago(ms: number, now = Date.now()): Date {
  return new Date(now - ms);
}

function hash(): string {
  return randomBytes(32).toString('hex');
}

export interface Owner {
  site: Site;
  clientRef: number;
  userId: number;
}

/** A site with a member and a public member client, for the rows below to belong to. */
export async function makeOwner(db: Database, label: string): Promise<Owner> {
  const suffix = randomBytes(4).toString('hex');
  const site = await createSite(db, { origin: `https://${label}-${suffix}.example`, name: `${label} ${suffix}`, subdomain: `${label}-${suffix}` });
  const user = await makeUser(db, site, ['student']);
  const { client } = await makeClient(db, site, { audience: 'member', confidential: false, scopes: ['account:read'] });
  return { site, clientRef: client.ref, userId: user.id };
}

export interface PairTimes {
  accessExpiresAt: Date;
  /** null: a pair without a refresh token. */
  refreshExpiresAt: Date | null;
  revokedAt?: Date | null;
  grantId?: string;
  clientRef?: number;
}

export function pairRow(owner: Owner, times: PairTimes): Record<string, unknown> {
  const createdAt = ago(40 * DAY);
  return {
    grant_id: times.grantId ?? randomBytes(16).toString('base64url'),
    site_id: owner.site.id,
    client_ref: times.clientRef ?? owner.clientRef,
    user_id: owner.userId,
    access_token_hash: tokenKey(mintToken('sga_', createdAt)),
    refresh_token_hash: times.refreshExpiresAt === null ? null : tokenKey(mintToken('sgr_', createdAt)),
    scope: 'account:read',
    resource: owner.site.origin,
    access_expires_at: times.accessExpiresAt,
    refresh_expires_at: times.refreshExpiresAt,
    revoked_at: times.revokedAt ?? null,
    revoked_reason: times.revokedAt ? 'revoked' : null,
    created_at: createdAt,
  };
}

export async function insertPair(db: Database, owner: Owner, times: PairTimes): Promise<number> {
  const [id] = await db('token_pairs').insert(pairRow(owner, times));
  return Number(id);
}

export async function insertCode(db: Database, owner: Owner, times: { expiresAt: Date; consumedAt?: Date | null; grantId?: string; clientRef?: number }): Promise<number> {
  const [id] = await db('authorization_codes').insert({
    site_id: owner.site.id,
    client_ref: times.clientRef ?? owner.clientRef,
    user_id: owner.userId,
    code_hash: hash(),
    grant_id: times.grantId ?? randomBytes(16).toString('base64url'),
    redirect_uri: 'http://127.0.0.1:8765/callback',
    scope: 'account:read',
    resource: owner.site.origin,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    nonce: null,
    auth_time: times.expiresAt,
    expires_at: times.expiresAt,
    consumed_at: times.consumedAt ?? null,
    created_at: times.expiresAt,
  });
  return Number(id);
}

export async function insertRequest(db: Database, owner: Owner, expiresAt: Date, clientRef = owner.clientRef): Promise<number> {
  const [id] = await db('authorization_requests').insert({
    site_id: owner.site.id,
    client_ref: clientRef,
    handle_hash: hash(),
    parameters: '{}',
    sign_in_session_id: null,
    expires_at: expiresAt,
    completed_at: null,
    created_at: expiresAt,
  });
  return Number(id);
}

export async function insertSession(db: Database, owner: Owner, times: { expiresAt: Date; revokedAt?: Date | null }): Promise<number> {
  const [id] = await db('sign_in_sessions').insert({
    site_id: owner.site.id,
    user_id: owner.userId,
    token_hash: hash(),
    csrf_secret: hash(),
    authenticated_at: null,
    expires_at: times.expiresAt,
    revoked_at: times.revokedAt ?? null,
    user_agent: null,
    created_at: ago(2 * DAY),
    updated_at: ago(2 * DAY),
  });
  return Number(id);
}

export async function insertCounter(db: Database, expiresAt: Date): Promise<string> {
  const bucket = `test:${hash().slice(0, 16)}`;
  await db('rate_limit_counters').insert({ bucket, window_start: new Date(expiresAt.getTime() - 60_000), hits: 1, expires_at: expiresAt });
  return bucket;
}

/** A cached Client ID Metadata Document client whose copy went stale at `expiresAt`. */
export async function insertDocumentClient(db: Database, owner: Owner, expiresAt: Date, options: { reviewed?: boolean } = {}): Promise<number> {
  const clientId = `https://agent-${hash().slice(0, 12)}.example/client.json`;
  const [id] = await db('oauth_clients').insert({
    site_id: owner.site.id,
    client_id: clientId,
    client_id_hash: hash(),
    name: 'Agent',
    audience: 'operator',
    confidential: false,
    token_endpoint_auth_method: 'none',
    secret_hash: null,
    redirect_uris: '["https://agent.example/cb"]',
    scopes: '["school:read"]',
    kind: 'metadata_document',
    reviewed: options.reviewed ?? false,
    metadata_fetched_at: expiresAt,
    metadata_expires_at: expiresAt,
    created_at: expiresAt,
    updated_at: expiresAt,
  });
  return Number(id);
}

export async function exists(db: Database, table: string, where: Record<string, unknown>): Promise<boolean> {
  return (await db(table).where(where).first()) !== undefined;
}

export async function countRows(db: Database, table: string): Promise<number> {
  const row = (await db(table).count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}
