import { randomFillSync } from 'node:crypto';
import { sha256Hex } from '../../shared/random.js';

/*
 * Access and refresh tokens and the keys the store finds them by. A token is its kind's prefix and 38 bytes,
 * base64url: the instant it was minted (48-bit milliseconds, big-endian) and 256 random bits. Its key is that instant
 * in hex followed by 208 bits of the token's SHA-256, so the store keeps no credential (a leaked key cannot be
 * presented) and keys grow with time: a new pair's entries land at the end of the two unique indexes, on pages every
 * recent insert shares, where a key of pure hash would write a random page of an index of millions of rows, one page
 * write-back per insert once the table is large. The instant is no secret: `expires_in` tells it as well.
 * Tokens minted without the instant (43 characters after the prefix) are found by their whole SHA-256, as they were
 * stored.
 */

export type TokenPrefix = 'sga_' | 'sgr_';

const PREFIX_CHARACTERS = 4;
const INSTANT_BYTES = 6;
const SECRET_BYTES = 32;
/** Base64url writes 3 bytes as 4 characters: the 6 bytes of the instant are exactly the body's first 8 characters. */
const INSTANT_CHARACTERS = (INSTANT_BYTES / 3) * 4;
const BODY_CHARACTERS = Math.ceil(((INSTANT_BYTES + SECRET_BYTES) * 4) / 3);
const TIMED_TOKEN = new RegExp(`^sg[ar]_[A-Za-z0-9_-]{${BODY_CHARACTERS}}$`);
/** A key is as long as a bare SHA-256 in hex (64), so keys of both forms share the columns: the instant, then hash. */
const KEY_HASH_CHARACTERS = 64 - 2 * INSTANT_BYTES;

/** A new token of the kind `prefix` names, minted at `now`. */
export function mintToken(prefix: TokenPrefix, now: Date): string {
  const body = Buffer.allocUnsafe(INSTANT_BYTES + SECRET_BYTES);
  body.writeUIntBE(now.getTime(), 0, INSTANT_BYTES);
  randomFillSync(body, INSTANT_BYTES);
  return prefix + body.toString('base64url');
}

/** The key a presented token is stored under: 64 hex characters, whatever was presented. */
export function tokenKey(token: string): string {
  const digest = sha256Hex(token);
  if (!TIMED_TOKEN.test(token)) return digest;
  const instant = Buffer.from(token.slice(PREFIX_CHARACTERS, PREFIX_CHARACTERS + INSTANT_CHARACTERS), 'base64url').toString('hex');
  return instant + digest.slice(0, KEY_HASH_CHARACTERS);
}
