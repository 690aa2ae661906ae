import { importJWK, SignJWT } from 'jose';
import type { Database } from '../../db/connection.js';
import { activeSigningKey, SIGNING_ALG } from '../../keys/signing-keys.js';
import { randomToken } from '../../shared/random.js';
import type { LogoutSubject } from '../../grants/logout-outbox.js';

/** OIDC Back-Channel Logout 1.0 2.4: the one event a logout token carries. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** 2.4: `typ` is logout+jwt, so a logout token can never pass for an id_token (and the other way round). */
export const LOGOUT_TOKEN_TYPE = 'logout+jwt';
/** 2.4 recommends at most two minutes. */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;

export interface LogoutTokenInput {
  issuer: string;
  clientId: string;
  subject: LogoutSubject;
}

/**
 * Signs a logout token (2.4) with the site's id_token key (ES256, its kid at jwks_uri): iss, aud = client_id, iat,
 * exp, a fresh jti, the backchannel-logout event, sub and (when the session is known) sid; never a nonce (2.4 forbids
 * it, so a logout token cannot be replayed as an id_token).
 */
export async function signLogoutToken(db: Database, siteId: number, input: LogoutTokenInput, now = new Date()): Promise<string> {
  const key = await activeSigningKey(db, siteId);
  const privateKey = await importJWK(key.privateJwk, SIGNING_ALG);
  const issuedAt = Math.floor(now.getTime() / 1000);
  const payload: Record<string, unknown> = { events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } };
  if (input.subject.sid !== null) payload.sid = input.subject.sid;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: LOGOUT_TOKEN_TYPE })
    .setIssuer(input.issuer)
    .setAudience(input.clientId)
    .setSubject(input.subject.sub)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + LOGOUT_TOKEN_TTL_SECONDS)
    .setJti(randomToken(16))
    .sign(privateKey);
}
