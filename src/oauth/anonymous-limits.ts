import { clientAddressKey } from '../accounts/sign-in.js';
import type { AnonymousLimitsConfig } from '../config/config.js';
import type { Database } from '../db/connection.js';
import { hit, type RateLimitResult } from '../db/rate-limit.js';
import { OAuthError } from './errors.js';

/**
 * What anonymous traffic may make us do, per client address and per client (docs/oauth.md, "Limits on anonymous
 * traffic"). Every count is a sliding-window counter in `rate_limit_counters` (src/db/rate-limit.ts), so all
 * instances share it. Failures where clients authenticate are limited in src/oauth/failure-limits.ts; sign-in
 * attempts have their own limits (src/accounts/sign-in.ts).
 */
export const ANONYMOUS_LIMITS = {
  /** Authorization requests for one client from browsers that are not signed in, from any address. */
  authorizePerClient: { limit: 1200, windowSeconds: 60 },
  /** Client ID Metadata Document fetches caused by one address, and fetches from one host (any address). */
  metadataFetchesPerAddress: { limit: 20, windowSeconds: 60 },
  metadataFetchesPerHost: { limit: 30, windowSeconds: 60 },
} as const;

/** The configured per-address limits as counter limits. */
export function addressLimits(config: AnonymousLimitsConfig): { authorize: Limit; failures: Limit } {
  return {
    authorize: { limit: config.authorizePerMinute, windowSeconds: 60 },
    failures: { limit: config.failuresPerTenMinutes, windowSeconds: 600 },
  };
}

export interface Limit {
  limit: number;
  windowSeconds: number;
}

/** 429 with Retry-After; `temporarily_unavailable` is the RFC 6749 code that tells a client to try again later. */
export class TooManyRequestsError extends OAuthError {
  constructor(description: string, retryAfterSeconds: number) {
    super(429, 'temporarily_unavailable', description, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

/** Counts one hit of a limit in `bucket`; the outcome says whether it is still allowed. */
export function countHit(db: Database, bucket: string, limit: Limit): Promise<RateLimitResult> {
  return hit(db, bucket, limit.windowSeconds, limit.limit);
}

/** The counter key of a client address (an IPv4 address or an IPv6 /64). */
export function addressBucket(kind: string, address: string): string {
  return `${kind}:address:${clientAddressKey(address)}`;
}
