import { importJWK, SignJWT } from 'jose';
import type { Database } from '../db/connection.js';
import { activeSigningKey, SIGNING_ALG } from '../keys/signing-keys.js';
import type { Site } from '../sites/sites.js';
import { ID_TOKEN_TTL_SECONDS } from './tokens/lifetimes.js';
import type { UserClaims } from './user-claims.js';

export interface IdTokenInput {
  site: Site;
  clientId: string;
  claims: UserClaims;
  nonce: string | null;
  authTime: Date | null;
  /** The sign-in session the grant was approved in (OIDC Back-Channel Logout 1.0 2.1 `sid`); omitted when unknown. */
  sid?: string | null;
}

export type IdTokenSigner = (input: IdTokenInput, now?: Date) => Promise<string>;

/**
 * Loads the site's active key once and answers a signer that needs no database, so the code exchange can sign inside
 * the transaction that consumes the code: a failure to sign then leaves the code unused.
 */
export async function idTokenSigner(db: Database, siteId: number): Promise<IdTokenSigner> {
  const key = await activeSigningKey(db, siteId);
  const privateKey = await importJWK(key.privateJwk, SIGNING_ALG);
  return async (input, now = new Date()) => {
    const issuedAt = Math.floor(now.getTime() / 1000);
    const payload: Record<string, unknown> = { ...input.claims };
    if (input.nonce !== null) payload.nonce = input.nonce;
    if (input.authTime !== null) payload.auth_time = Math.floor(input.authTime.getTime() / 1000);
    if (input.sid) payload.sid = input.sid;
    // An ES256 id_token (spec: id_token claims): iss = origin, aud = client_id, 10-minute exp, nonce echoed, kid at jwks_uri.
    return new SignJWT(payload)
      .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: 'JWT' })
      .setIssuer(input.site.origin)
      .setAudience(input.clientId)
      .setSubject(input.claims.sub)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ID_TOKEN_TTL_SECONDS)
      .sign(privateKey);
  };
}
