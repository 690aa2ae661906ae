import type { Role } from '../accounts/roles.js';
import type { User } from '../accounts/users.js';
import type { Scope } from '../clients/scopes.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import type { SiteContext } from '../http/state.js';
import { annotateSpan, inSpanNow, tracingIsOn } from '../shared/tracing.js';
import type { Site } from '../sites/sites.js';
import { requireProofOfPossession, verifyResourceProof } from './dpop/resource-proof.js';
import { dpopRequestOf, type DpopRequest } from './dpop/request.js';
import { InsufficientScopeError, InvalidTokenError } from './errors.js';
import { lastUseIsStale } from './tokens/last-used.js';
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

/** RFC 6750 2.1 and RFC 9449 7.1: `Bearer <token>` or `DPoP <token>`, the scheme case-insensitive. */
const AUTHORIZATION = /^(Bearer|DPoP) ([A-Za-z0-9\-._~+/]+=*)$/i;

/** What a protected resource reads of a request: the Authorization header and what DPoP checks (RFC 9449 7). */
export interface ResourceRequest extends DpopRequest {
  authorization: string | undefined;
}

/** The access token of a request and the scheme it came with. */
export interface AccessCredentials {
  scheme: 'Bearer' | 'DPoP';
  token: string;
}

/** The one reading of a resource request, shared by userinfo, the member GraphQL API, /mcp and the admin API. */
export function resourceRequestOf(ctx: SiteContext, config: Pick<Config, 'dpopNonceRequired'>): ResourceRequest {
  return Object.assign(dpopRequestOf(ctx.state.site, ctx, config.dpopNonceRequired), { authorization: ctx.get('authorization') || undefined });
}

/** The token and scheme of the Authorization header, or null when the header is absent. */
export function accessCredentialsOf(site: Site, authorization: string | undefined): AccessCredentials | null {
  if (authorization === undefined || authorization === '') return null;
  const match = AUTHORIZATION.exec(authorization.trim());
  if (!match?.[1] || !match[2]) throw new InvalidTokenError(site.origin, 'the Authorization header is not "Bearer <access token>" (or "DPoP <access token>" with a DPoP proof)');
  return { scheme: match[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: match[2] };
}

/**
 * The one access-token verifier behind userinfo, the member GraphQL API, /mcp and the admin API: 401 invalid_token
 * for missing, malformed, unknown, expired, revoked and other-origin tokens; a DPoP-bound token needs the DPoP scheme
 * and a proof of its key (RFC 9449 7), an unbound one the Bearer scheme. The first presentation of a refreshed
 * token revokes its predecessor (spec: Token pair). A database that cannot answer surfaces as a connection error,
 * which the error middleware turns into 503 without WWW-Authenticate.
 */
export function verifyAccessToken(db: Database, site: Site, credentials: AccessCredentials, request: DpopRequest, now = new Date()): Promise<VerifiedToken> {
  return tracingIsOn() ? verifyInSpan(db, site, credentials, request, now) : verify(db, site, credentials, request, now);
}

/** The verification as the span `oauth2.verify_token` (docs/operations.md, "Tracing"), while tracing is on. */
function verifyInSpan(db: Database, site: Site, credentials: AccessCredentials, request: DpopRequest, now: Date): Promise<VerifiedToken> {
  return inSpanNow('oauth2.verify_token', () => {
    annotateSpan('oauth2.token.scheme', credentials.scheme);
    return verify(db, site, credentials, request, now);
  });
}

async function verify(db: Database, site: Site, credentials: AccessCredentials, request: DpopRequest, now: Date): Promise<VerifiedToken> {
  const { scheme, token } = credentials;
  // The proof's stateless checks first: a request refused for its proof reads and writes nothing.
  const proof = scheme === 'DPoP' ? await verifyResourceProof(site, token, request, now) : null;
  const presented = await readAccessToken(db, token);
  // A pair whose client is gone is gone too (foreign key): unknown either way.
  if (!presented) throw new InvalidTokenError(site.origin, 'the access token is not recognised', scheme);
  const { pair, client, user, roles } = presented;
  annotateSpan('oauth2.client_id', client.clientId);
  // RFC 9449 7.1: a DPoP-bound token is always challenged with the DPoP scheme.
  const challenge = pair.dpopJkt === null ? scheme : 'DPoP';
  // RFC 8707: the token is bound to the origin it was issued for (Authentication 7).
  if (pair.siteId !== site.id || pair.resource !== site.origin) throw new InvalidTokenError(site.origin, `the access token was issued for a different origin, not ${site.origin}`, challenge);
  if (pair.revokedAt !== null) throw new InvalidTokenError(site.origin, 'the access token has been revoked', challenge);
  if (pair.accessExpiresAt.getTime() <= now.getTime()) throw new InvalidTokenError(site.origin, 'the access token has expired; use the refresh token', challenge);
  // An unbound token sent as Bearer needs no proof (RFC 9449 7.1), and a token used before and lately needs no write:
  // the common request awaits neither check.
  if (pair.dpopJkt !== null || scheme === 'DPoP') await requireProofOfPossession(db, site, pair, scheme, proof);
  if (pair.firstUsedAt === null || lastUseIsStale(pair, now)) {
    if (!(await recordFirstUse(db, pair, now))) throw new InvalidTokenError(site.origin, 'the access token has been revoked', challenge);
  }
  return { pair, client, scopes: pair.scopes, userId: pair.userId, user, roles };
}

/** The token and scheme of the Authorization header; a request without one is refused (401 invalid_token). */
export function requireAccessCredentials(site: Site, authorization: string | undefined): AccessCredentials {
  const credentials = accessCredentialsOf(site, authorization);
  if (credentials === null) throw new InvalidTokenError(site.origin, 'this endpoint needs an access token: Authorization: Bearer <token>, or DPoP <token> with a DPoP proof');
  return credentials;
}

/** Verifies the request's access token; a request without one is refused (401 invalid_token). */
export function requireAccessToken(db: Database, site: Site, request: ResourceRequest): Promise<VerifiedToken> {
  // Not async, so the verification's own promise is the answer; a request without a token still gets a rejection.
  try {
    return verifyAccessToken(db, site, requireAccessCredentials(site, request.authorization), request);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** 403 insufficient_scope unless the token holds at least one of `anyOf`. */
export function requireAnyScope(site: Site, verified: VerifiedToken, anyOf: readonly Scope[]): void {
  if (!anyOf.some((scope) => verified.scopes.includes(scope))) throw new InsufficientScopeError(site.origin, anyOf);
}
