import { isIPv4, isIPv6 } from 'node:net';
import type { Database } from '../db/connection.js';
import { hit, release } from '../db/rate-limit.js';
import { sha256Hex } from '../shared/random.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { findSignInAccountAt, normalizeEmail, type User } from './users.js';

/**
 * Password sign-in with rate limits per account and per client address, counted in the database so every instance
 * shares them (spec: Limits). Not shown in the spec; our choice (docs/authorize.md):
 * - per account (the email as typed, normalised): 5 failed attempts per sliding 15-minute window;
 * - per client address (IPv4 address, or IPv6 /64): 20 failed attempts per sliding 15-minute window.
 * Each attempt is counted before the password is checked (so parallel guesses cannot slip past the limit) and
 * given back when it succeeds, so only failures use up the allowance. So that one person cannot lock out everyone
 * behind a school's address: an attempt the account's own limit refuses is not counted against the address, and a
 * successful sign-in gives back to the address the failures its account made in the current window (a typo
 * followed by the right password costs the address nothing) and starts the account's count again.
 */
export const SIGN_IN_LIMITS = {
  perAccount: { limit: 5, windowSeconds: 15 * 60 },
  perAddress: { limit: 20, windowSeconds: 15 * 60 },
} as const;

/** Longer passwords are refused without hashing them (scrypt cost grows with the input). */
export const MAX_PASSWORD_LENGTH = 1024;

export type SignInOutcome =
  | { kind: 'signed_in'; user: User }
  /** Unknown email, wrong password, or an account without a password: deliberately indistinguishable. */
  | { kind: 'invalid_credentials' }
  | { kind: 'rate_limited'; limitedBy: 'account' | 'address'; retryAfterSeconds: number };

/** One key per person behind an address: an IPv4 address, or the /64 prefix of an IPv6 address (one subscriber line). */
export function clientAddressKey(address: string): string {
  const bare = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  if (isIPv4(bare)) return bare;
  if (isIPv6(bare)) return expandIPv6(bare).slice(0, 4).join(':') + '::/64';
  return bare.slice(0, 64) || 'unknown';
}

function expandIPv6(address: string): string[] {
  const [head = '', tail = ''] = address.split('::', 2);
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const missing = 8 - headParts.length - tailParts.length;
  return [...headParts, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailParts].map((part) => part.toLowerCase().padStart(4, '0'));
}

/** The rate-limit buckets of an attempt; the email is hashed so the counters table holds no addresses of people. */
export function signInBuckets(email: string, clientAddress: string): { account: string; address: string } {
  let account = email.trim().toLowerCase();
  try {
    account = normalizeEmail(email);
  } catch {
    // Not an email: still counted, under what was typed.
  }
  return { account: `sign-in:account:${sha256Hex(account)}`, address: `sign-in:address:${clientAddressKey(clientAddress)}` };
}

let dummyHash: Promise<string> | undefined;

/** A hash to verify against when there is no account, so an unknown email costs the same time as a wrong password. */
function hashForMissingAccount(): Promise<string> {
  dummyHash ??= hashPassword('no account has this password');
  return dummyHash;
}

async function checkPassword(db: Database, siteId: number, email: string, password: string): Promise<User | null> {
  if (password.length > MAX_PASSWORD_LENGTH) return null;
  const found = await findSignInAccountAt(db, siteId, email);
  if (!found || found.passwordHashes.length === 0) {
    // One verification anyway: an unknown email, or an account without a password, costs what a wrong password costs.
    await verifyPassword(password, await hashForMissingAccount());
    return null;
  }
  for (const hash of found.passwordHashes) if (await verifyPassword(password, hash)) return found.user;
  return null;
}

/** Checks an email and password at a site against the rate limits and the account's scrypt hashes there. */
export async function signInWithPassword(db: Database, input: { siteId: number; email: string; password: string; clientAddress: string }): Promise<SignInOutcome> {
  const buckets = signInBuckets(input.email, input.clientAddress);
  const { perAccount, perAddress } = SIGN_IN_LIMITS;
  const byAccount = await hit(db, buckets.account, perAccount.windowSeconds, perAccount.limit);
  if (!byAccount.allowed) return { kind: 'rate_limited', limitedBy: 'account', retryAfterSeconds: byAccount.retryAfterSeconds };
  const byAddress = await hit(db, buckets.address, perAddress.windowSeconds, perAddress.limit);
  if (!byAddress.allowed) {
    // Not checked, so not the account's failure.
    await release(db, buckets.account, perAccount.windowSeconds);
    return { kind: 'rate_limited', limitedBy: 'address', retryAfterSeconds: byAddress.retryAfterSeconds };
  }
  const user = await checkPassword(db, input.siteId, input.email, input.password);
  if (!user) return { kind: 'invalid_credentials' };
  // This attempt and the account's earlier failures of this window, given back to the address and the account.
  await release(db, buckets.address, perAddress.windowSeconds, byAccount.hits);
  await release(db, buckets.account, perAccount.windowSeconds, byAccount.hits);
  return { kind: 'signed_in', user };
}
