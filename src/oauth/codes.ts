import type { Database } from '../db/connection.js';
import { requireDate } from '../db/connection.js';
import { randomToken, sha256Hex } from '../shared/random.js';
import type { Scope } from '../clients/scopes.js';
import { AUTHORIZATION_CODE_TTL_SECONDS } from './tokens/lifetimes.js';
import { newGrantId } from './tokens/store.js';

export interface NewAuthorizationCode {
  siteId: number;
  clientRef: number;
  userId: number;
  redirectUri: string;
  scopes: readonly Scope[];
  resource: string;
  codeChallenge: string;
  nonce: string | undefined;
  authTime: Date;
  /** The sign-in session the consent was given in (its `sid`), carried into the grant's pairs and id_tokens. */
  sid?: string | null;
  /** RFC 9449 10: the DPoP key thumbprint the authorization request named (`dpop_jkt`); the code is redeemed only with it. */
  dpopJkt?: string | null;
}

export interface AuthorizationCodeRecord {
  id: number;
  siteId: number;
  clientRef: number;
  userId: number;
  redirectUri: string;
  scopes: Scope[];
  resource: string;
  codeChallenge: string;
  nonce: string | null;
  authTime: Date;
  expiresAt: Date;
  consumedAt: Date | null;
  /** The grant every pair issued for this code belongs to; a replay of the code revokes it. */
  grantId: string;
  sid: string | null;
  dpopJkt: string | null;
}

interface CodeRow {
  id: number;
  site_id: number;
  client_ref: number;
  user_id: number;
  code_hash: string;
  redirect_uri: string;
  scope: string;
  resource: string;
  code_challenge: string;
  nonce: string | null;
  auth_time: unknown;
  expires_at: unknown;
  consumed_at: unknown;
  grant_id: string;
  sid: string | null;
  dpop_jkt: string | null;
}

/** Issues a single-use authorization code (256 bits, stored hashed) for a completed consent: one new grant. */
export async function issueAuthorizationCode(db: Database, input: NewAuthorizationCode): Promise<string> {
  const code = `sgc_${randomToken(32)}`;
  const now = new Date();
  await db('authorization_codes').insert({
    site_id: input.siteId,
    client_ref: input.clientRef,
    user_id: input.userId,
    code_hash: sha256Hex(code),
    grant_id: newGrantId(),
    redirect_uri: input.redirectUri,
    scope: input.scopes.join(' '),
    resource: input.resource,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
    nonce: input.nonce ?? null,
    auth_time: input.authTime,
    sid: input.sid ?? null,
    dpop_jkt: input.dpopJkt ?? null,
    expires_at: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_SECONDS * 1000),
    created_at: now,
  });
  return code;
}

export async function findAuthorizationCode(db: Database, siteId: number, code: string): Promise<AuthorizationCodeRecord | null> {
  const row = await db<CodeRow>('authorization_codes').where({ code_hash: sha256Hex(code), site_id: siteId }).first();
  if (!row) return null;
  return {
    id: row.id,
    siteId: row.site_id,
    clientRef: row.client_ref,
    userId: row.user_id,
    redirectUri: row.redirect_uri,
    scopes: row.scope.split(' ').filter(Boolean) as Scope[],
    resource: row.resource,
    codeChallenge: row.code_challenge,
    nonce: row.nonce,
    authTime: requireDate(row.auth_time),
    expiresAt: requireDate(row.expires_at),
    consumedAt: row.consumed_at === null ? null : requireDate(row.consumed_at),
    grantId: row.grant_id,
    sid: row.sid ?? null,
    dpopJkt: row.dpop_jkt ?? null,
  };
}
