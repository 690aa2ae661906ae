import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { CLIENT_ASSERTION_ALGORITHMS } from '../../clients/client-keys.js';
import type { OAuthClient } from '../../clients/clients.js';
import type { Database } from '../../db/connection.js';
import type { Site } from '../../sites/sites.js';
import { OAUTH_PATHS, siteUrl } from '../endpoints.js';
import { InvalidClientError } from '../errors.js';
import { consumeJti } from '../single-use-jti.js';
import { canRefetch, clientKeySet } from './client-key-set.js';
import type { ClientAuthEndpoint } from './endpoint.js';

/** RFC 7523 3 item 4: "not too far in the future"; an assertion is made for one request, so five minutes is ample. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 5 * 60;
/** Allowed difference between the client's clock and ours for exp, nbf and iat. */
export const CLOCK_SKEW_SECONDS = 30;

const ENDPOINT_PATHS: Record<ClientAuthEndpoint, string> = { token: OAUTH_PATHS.token, revocation: OAUTH_PATHS.revoke, introspection: OAUTH_PATHS.introspect };

/**
 * RFC 7523 3 item 3 and OIDC Core 9: the audience identifies this authorization server: its issuer (the site origin,
 * as oauth4webapi and RFC 7523bis send), the endpoint being called, or the token endpoint (OIDC Core 9 names it,
 * and clients reuse that assertion shape at revocation and introspection). All three belong to this site only.
 */
export function acceptedAudiences(site: Site, endpoint: ClientAuthEndpoint): string[] {
  return [...new Set([site.origin, siteUrl(site.origin, ENDPOINT_PATHS[endpoint]), siteUrl(site.origin, OAUTH_PATHS.token)])];
}

const refused = (problem: string) => new InvalidClientError(`client_assertion refused: ${problem}`);

/** The words for a jose verification failure; anything unexpected stays generic. */
function describe(error: unknown, site: Site, client: OAuthClient, endpoint: ClientAuthEndpoint): InvalidClientError {
  if (error instanceof InvalidClientError) return error;
  if (error instanceof errors.JWTExpired) return refused('it has expired (exp is in the past); sign a new assertion for each request');
  if (error instanceof errors.JWTClaimValidationFailed) {
    const { claim, reason } = error;
    if (reason === 'missing') return refused(`the ${claim} claim is required`);
    if (claim === 'iss' || claim === 'sub') return refused(`${claim} must be the client_id ${client.clientId} (RFC 7523 3)`);
    if (claim === 'aud') return refused(`aud must name this server: ${acceptedAudiences(site, endpoint).join(' or ')}`);
    if (claim === 'nbf') return refused('it is not valid yet (nbf is in the future)');
    return refused(`the ${claim} claim is invalid (${error.message})`);
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSMultipleMatchingKeys) {
    return refused(`it is not signed by a key registered for the client ${client.clientId}${client.jwksUri ? ` (keys from ${client.jwksUri})` : ''}`);
  }
  if (error instanceof errors.JOSEError) return refused(`it is not a valid signed JWT (${error.message})`);
  throw error;
}

/** Verifies with the set; with several keys that fit (no kid), each is tried, as jose leaves to its caller. */
async function verifyWith(assertion: string, keys: JSONWebKeySet, options: JWTVerifyOptions): Promise<JWTPayload> {
  const getKey = createLocalJWKSet(keys);
  try {
    return (await jwtVerify(assertion, getKey, options)).payload;
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    for await (const key of error) {
      try {
        return (await jwtVerify(assertion, key, options)).payload;
      } catch (attempt) {
        if (!(attempt instanceof errors.JWSSignatureVerificationFailed)) throw attempt;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

async function verifiedPayload(db: Database, site: Site, client: OAuthClient, assertion: string, options: JWTVerifyOptions): Promise<JWTPayload> {
  const keys = await clientKeySet(db, site, client);
  if (!keys) throw new InvalidClientError(`the client ${client.clientId} is registered for private_key_jwt but has no keys registered (jwks or jwks_uri); ask the site operator to register its public keys`);
  try {
    return await verifyWith(assertion, keys, options);
  } catch (error) {
    // An unknown kid may be a rotated key: refetch a jwks_uri set once (RFC 7517 does not promise stable sets).
    if (!(error instanceof errors.JWKSNoMatchingKey) || !canRefetch(site, client)) throw error;
    const refreshed = await clientKeySet(db, site, client, true);
    return verifyWith(assertion, refreshed ?? keys, options);
  }
}

/**
 * private_key_jwt (RFC 7523 2.2 and 3, OIDC Core 9): a JWT signed with one of the client's registered keys (ES256,
 * RS256 or EdDSA/Ed25519 only: never `none`, never a shared-secret HMAC), iss = sub = client_id, an aud naming this server,
 * exp required and at most five minutes ahead, iat and nbf honoured with a small clock skew, and a jti used once across
 * every instance (recorded in used_jtis only after every other check passed, so a refused assertion consumes nothing).
 */
export async function verifyClientAssertion(db: Database, site: Site, client: OAuthClient, assertion: string, endpoint: ClientAuthEndpoint): Promise<void> {
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(assertion).alg;
  } catch {
    throw refused('it is not a signed JWT (RFC 7523 3)');
  }
  if (typeof alg !== 'string' || !(CLIENT_ASSERTION_ALGORITHMS as readonly string[]).includes(alg)) {
    throw refused(`it is signed with ${typeof alg === 'string' ? alg : 'no algorithm'}; private_key_jwt accepts ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}`);
  }
  const options: JWTVerifyOptions = {
    algorithms: [...CLIENT_ASSERTION_ALGORITHMS],
    issuer: client.clientId,
    subject: client.clientId,
    audience: acceptedAudiences(site, endpoint),
    clockTolerance: CLOCK_SKEW_SECONDS,
    requiredClaims: ['exp', 'jti'],
  };
  let payload: JWTPayload;
  try {
    payload = await verifiedPayload(db, site, client, assertion, options);
  } catch (error) {
    throw describe(error, site, client, endpoint);
  }
  const now = Math.floor(Date.now() / 1000);
  const exp = payload.exp as number;
  if (exp > now + MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) throw refused(`exp is more than ${MAX_ASSERTION_LIFETIME_SECONDS / 60} minutes ahead; an assertion is for one request, make it short-lived`);
  if (payload.iat !== undefined && payload.iat > now + CLOCK_SKEW_SECONDS) throw refused('iat is in the future');
  if (typeof payload.jti !== 'string' || payload.jti === '') throw refused('jti must be a non-empty string (RFC 7523 3 item 7)');
  // RFC 7523 3 item 7: the jti is single use until exp, across every instance over this database.
  if (!(await consumeJti(db, 'client_assertion', client.clientId, payload.jti, new Date((exp + CLOCK_SKEW_SECONDS) * 1000)))) {
    throw refused('its jti was already used; sign a new assertion, with a new jti, for each request');
  }
}
