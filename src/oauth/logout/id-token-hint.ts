import { compactVerify, createLocalJWKSet, decodeProtectedHeader } from 'jose';
import type { Database } from '../../db/connection.js';
import { publishedJwks, SIGNING_ALG } from '../../keys/signing-keys.js';
import type { Site } from '../../sites/sites.js';

/** What an id_token_hint tells the end_session endpoint, once it is known to be one of this site's id_tokens. */
export interface IdTokenHint {
  /** The client it was issued to (`aud`). */
  clientId: string;
  sub: string;
  sid: string | null;
}

/** Why a hint is refused; the page says it, and nothing is redirected. */
export class InvalidIdTokenHint extends Error {
  override readonly name = 'InvalidIdTokenHint';
}

/**
 * OIDC RP-Initiated Logout 1.0 2: the OP MUST check it issued the hint, and SHOULD accept one that has expired. So the
 * signature is verified against the site's published keys (the active key and recently retired ones) and `iss` must
 * be the site, but `exp` is not enforced. A logout token (typ logout+jwt) is not an id_token and is refused.
 */
export async function readIdTokenHint(db: Database, site: Site, hint: string): Promise<IdTokenHint> {
  let typ: unknown;
  try {
    typ = decodeProtectedHeader(hint).typ;
  } catch {
    throw new InvalidIdTokenHint('the id_token_hint is not a JWT');
  }
  if (typ !== undefined && typ !== 'JWT') throw new InvalidIdTokenHint('the id_token_hint is not an id_token');
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(hint, createLocalJWKSet(await publishedJwks(db, site.id)), { algorithms: [SIGNING_ALG] }));
  } catch {
    throw new InvalidIdTokenHint(`the id_token_hint was not issued by ${site.origin}`);
  }
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
  } catch {
    throw new InvalidIdTokenHint('the id_token_hint has no readable claims');
  }
  if (claims === null || typeof claims !== 'object' || claims.iss !== site.origin) throw new InvalidIdTokenHint(`the id_token_hint was not issued by ${site.origin}`);
  const aud = Array.isArray(claims.aud) && claims.aud.length === 1 ? claims.aud[0] : claims.aud;
  if (typeof aud !== 'string' || aud === '') throw new InvalidIdTokenHint('the id_token_hint does not name one client as its audience');
  if (typeof claims.sub !== 'string' || claims.sub === '') throw new InvalidIdTokenHint('the id_token_hint has no subject');
  return { clientId: aud, sub: claims.sub, sid: typeof claims.sid === 'string' ? claims.sid : null };
}
