import { InvalidClientError } from '../errors.js';

/** The id and secret an `Authorization: Basic` header carries (RFC 6749 2.3.1). */
export interface BasicCredentials {
  clientId: string;
  clientSecret: string;
}

/** Padded or unpadded base64 (RFC 4648 4), the token68 of RFC 7617 2. */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** True when the header asks for the Basic scheme (RFC 9110 11.1: scheme names are case-insensitive). */
export function isBasicAuthorization(header: string | undefined): header is string {
  return header !== undefined && /^basic(?:\s|$)/i.test(header.trimStart());
}

/** RFC 6749 2.3.1 / Appendix B: application/x-www-form-urlencoded decoding, `+` as a space and strict %XX escapes. */
function formDecode(value: string, what: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw new InvalidClientError(`the ${what} in the Authorization: Basic header has a malformed percent-escape; encode the ${what} with application/x-www-form-urlencoded before base64 (RFC 6749 2.3.1)`);
  }
}

/**
 * Parses `Authorization: Basic base64(urlencode(client_id) ":" urlencode(client_secret))` (RFC 6749 2.3.1, RFC 7617).
 * Every malformed header is `invalid_client`, not `invalid_request`: RFC 6749 5.2 makes a failed authentication
 * through the Authorization header a 401 with a Basic challenge, and credentials that cannot be decoded are a failed
 * authentication (RFC 7617 2 answers them with the challenge too); the caller adds the challenge.
 */
export function parseBasicCredentials(header: string): BasicCredentials {
  const token = header.trim().slice('basic'.length).trim();
  if (token === '') throw new InvalidClientError('the Authorization: Basic header carries no credentials');
  if (!BASE64.test(token) || token.replace(/=+$/, '').length % 4 === 1) throw new InvalidClientError('the Authorization: Basic credentials are not valid base64');
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(token, 'base64'));
  } catch {
    throw new InvalidClientError('the Authorization: Basic credentials are not UTF-8 once base64-decoded');
  }
  // The id is form-encoded, so a literal colon in it is escaped and the first colon separates the two parts.
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new InvalidClientError('the Authorization: Basic credentials have no colon between client_id and client_secret');
  const clientId = formDecode(decoded.slice(0, colon), 'client_id');
  const clientSecret = formDecode(decoded.slice(colon + 1), 'client_secret');
  if (clientId === '') throw new InvalidClientError('the Authorization: Basic credentials have an empty client_id');
  if (clientSecret === '') throw new InvalidClientError('the Authorization: Basic credentials have an empty client_secret; a client without a secret sends only client_id in the body (none)');
  return { clientId, clientSecret };
}

/** RFC 6749 5.2: the challenge a 401 carries when the client tried HTTP Basic (RFC 7617 2). */
export function basicChallenge(origin: string): Record<string, string> {
  return { 'WWW-Authenticate': `Basic realm="${origin.replace(/["\\]/g, '')}", charset="UTF-8"` };
}
