import { createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/connection.js';
import { constantTimeEqual, randomToken, sha256Hex } from '../shared/random.js';

/**
 * Client secrets are stored as `scrypt$N$r$p$salt$hash` (base64url salt and hash), the shape of password hashes.
 * The secrets carry at least 256 bits, so no guess finds one whatever the work factor; the slow hash keeps a leaked
 * table from confirming even a weak secret. N=2^14, r=8, p=1 (16 MiB) took a median 31 ms (28–47 ms) on a busy
 * 2-core machine, an eighth of the password cost (N=2^17); successful verifications are remembered below, so a
 * client pays it once per process and secret. The parameters are stored with each hash so they can change.
 */
const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
/** Room for stored parameters up to 4× today's memory (scrypt needs 128·N·r bytes). */
const MAX_MEMORY = 4 * 128 * PARAMS.N * PARAMS.r + 1024 * 1024;

/** What earlier versions stored: `sha256$<hex>`. It still verifies, and is replaced on its first success. */
const LEGACY_PREFIX = 'sha256$';

/** A new secret: 32 random bytes (256 bits), base64url, behind a recognisable prefix. */
export function generateClientSecret(): string {
  return `sgs_${randomToken(32)}`;
}

function derive(secret: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, { ...params, maxmem: MAX_MEMORY }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashClientSecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(secret, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export function isLegacyClientSecretHash(stored: string): boolean {
  return stored.startsWith(LEGACY_PREFIX);
}

/** The slow comparison; every branch compares in constant time. A malformed stored value matches nothing. */
async function storedHashMatches(secret: string, stored: string): Promise<boolean> {
  if (isLegacyClientSecretHash(stored)) return constantTimeEqual(`${LEGACY_PREFIX}${sha256Hex(secret)}`, stored);
  const parts = stored.split('$');
  const [scheme, n, r, p, salt, hash] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt' || !salt || !hash) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (![params.N, params.r, params.p].every((value) => Number.isSafeInteger(value) && value > 0)) return false;
  const expected = Buffer.from(hash, 'base64url');
  try {
    const actual = await derive(secret, Buffer.from(salt, 'base64url'), params);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  } catch {
    return false; // parameters scrypt refuses (or that need more memory than allowed)
  }
}

// Successful verifications of this process, so a confidential client's token requests do not each pay the slow hash.
// The entry is an HMAC, under a key that never leaves the process, of the stored hash and the presented secret: a
// rotated secret or a deleted client changes or removes the stored hash, so an old entry can never match again, and
// the set holds nothing that confirms a secret offline. Only an optimisation: another instance verifies on its own.
const MEMO_KEY = randomBytes(32);
const MEMO_LIMIT = 1000;
const verified = new Set<string>();

function memoEntry(secret: string, stored: string): string {
  return createHmac('sha256', MEMO_KEY).update(stored).update('\u0000').update(secret).digest('base64url');
}

function remember(entry: string): void {
  verified.delete(entry);
  verified.add(entry);
  // Sets iterate in insertion order: the first entry is the one used least recently.
  if (verified.size > MEMO_LIMIT) verified.delete(verified.values().next().value as string);
}

/** Whether `secret` is the one `stored` (an scrypt or legacy SHA-256 hash) was made from. */
export async function clientSecretMatches(secret: string, stored: string): Promise<boolean> {
  const entry = memoEntry(secret, stored);
  if (verified.has(entry) || (await storedHashMatches(secret, stored))) {
    remember(entry);
    return true;
  }
  return false;
}

/**
 * Authenticates a presented secret against a client's stored hash; a legacy SHA-256 hash that matched is replaced by
 * an scrypt one. The replacement is a compare-and-set on the old value, so it never overwrites a secret rotated in
 * the meantime, and when two instances upgrade at once one write lands and the other matches no row (both hashes
 * verify the same secret). It changes neither the rotation time nor the version: the secret is the same.
 */
export async function verifyClientSecret(db: Database, clientRef: number, secret: string, stored: string): Promise<boolean> {
  if (!(await clientSecretMatches(secret, stored))) return false;
  if (isLegacyClientSecretHash(stored)) {
    await db('oauth_clients').where({ id: clientRef, secret_hash: stored }).update({ secret_hash: await hashClientSecret(secret) });
  }
  return true;
}
