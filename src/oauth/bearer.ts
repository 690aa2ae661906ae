import type { Role } from '../accounts/roles.js';
import type { User } from '../accounts/users.js';
import type { Scope } from '../clients/scopes.js';
import type { Database } from '../db/connection.js';
import type { Site } from '../sites/sites.js';
import { InsufficientScopeError, InvalidTokenError } from './errors.js';
import { recordFirstUse } from './tokens/rotation.js';
import type { AccessTokenPair } from './tokens/store.js';
import { readAccessToken, type AccessTokenClient } from './tokens/verification.js';

/** A live access token presented to this site, with what resources need of its client. */
export interface VerifiedToken {
  pair: AccessTokenPair;
  client: AccessTokenClient;
  scopes: Scope[];
  /** The resource owner; null for a token with no resource owner. */
  userId: number | null;
  /** The resource owner's account and roles at the site, read with the token. */
  user: User | null;
  roles: Role[];
}

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/** The token of an `Authorization: Bearer` header (RFC 6750 2.1), or null when the header is absent. */
export function bearerTokenOf(site: Site, authorization: string | undefined): string | null {
  if (authorization === undefined || authorization === '') return null;
  const match = BEARER.exec(authorization.trim());
  if (!match?.[1]) throw new InvalidTokenError(site.origin, 'the Authorization header is not "Bearer <access token>"');
  return match[1];
}

/**
 * The one bearer-token verifier behind userinfo, the member GraphQL API, /mcp and the admin API: 401 invalid_token
 * for missing, malformed, unknown, expired, revoked and other-origin tokens. The first presentation of a refreshed
 * token revokes its predecessor (spec: Token pair). A database that cannot answer surfaces as a connection error,
 * which the error middleware turns into 503 without WWW-Authenticate.
 */
export async function verifyAccessToken(db: Database, site: Site, token: string, now = new Date()): Promise<VerifiedToken> {
  const presented = await readAccessToken(db, token);
  // A pair whose client is gone is gone too (foreign key): unknown either way.
  if (!presented) throw new InvalidTokenError(site.origin, 'the access token is not recognised');
  const { pair, client, user, roles } = presented;
  // RFC 8707: the token is bound to the origin it was issued for (Authentication 7).
  if (pair.siteId !== site.id || pair.resource !== site.origin) throw new InvalidTokenError(site.origin, `the access token was issued for a different origin, not ${site.origin}`);
  if (pair.revokedAt !== null) throw new InvalidTokenError(site.origin, 'the access token has been revoked');
  if (pair.accessExpiresAt.getTime() <= now.getTime()) throw new InvalidTokenError(site.origin, 'the access token has expired; use the refresh token');
  if (!(await recordFirstUse(db, pair, now))) throw new InvalidTokenError(site.origin, 'the access token has been revoked');
  return { pair, client, scopes: pair.scopes, userId: pair.userId, user, roles };
}

/** Verifies the request's bearer token; a request without one is refused (401 invalid_token). */
export async function requireAccessToken(db: Database, site: Site, authorization: string | undefined): Promise<VerifiedToken> {
  const token = bearerTokenOf(site, authorization);
  if (token === null) throw new InvalidTokenError(site.origin, 'this endpoint needs an access token: Authorization: Bearer <token>');
  return verifyAccessToken(db, site, token);
}

/** 403 insufficient_scope unless the token holds at least one of `anyOf`. */
export function requireAnyScope(site: Site, verified: VerifiedToken, anyOf: readonly Scope[]): void {
  if (!anyOf.some((scope) => verified.scopes.includes(scope))) throw new InsufficientScopeError(site.origin, anyOf);
}

/**
 * Variant A binds member tokens to a site through `school_id` (spec: Token response); a member token without this
 * site's is "refused as issued for a different organization" (Authentication 8) at every member resource.
 */
export function requireSchoolBinding(site: Site, verified: VerifiedToken): void {
  if (verified.client.audience === 'member' && verified.pair.schoolId !== site.id) {
    throw new InvalidTokenError(site.origin, 'the access token was issued for a different organization (it has no school_id for this site); re-run the authorization-code flow to get one');
  }
}
