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

const INSTANT_BYTES = 6;
const SECRET_BYTES = 32;
/** 6 bytes are exactly 8 base64url characters, so the instant is the body's first 8 characters. */
const INSTANT_CHARACTERS = 8;
const TIMED_TOKEN = /^sg[ar]_[A-Za-z0-9_-]{51}$/;
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
  const instant = Buffer.from(token.slice(4, 4 + INSTANT_CHARACTERS), 'base64url').toString('hex');
  return instant + digest.slice(0, KEY_HASH_CHARACTERS);
}
