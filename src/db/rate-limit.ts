import type { Database } from './connection.js';
import { withTransaction } from './transaction.js';

/**
 * Fixed-window rate limiting over the `rate_limit_counters` table, so every instance sharing the database shares
 * the counts: sign-in is rate limited per account and per address, with the state in the database.
 *
 * A bucket is any string up to 191 characters naming what is counted, e.g. `sign-in:address:203.0.113.7`. Time is
 * cut into windows of `windowSeconds` aligned to the epoch; each (bucket, window) is one row whose `hits` the
 * database increments atomically (an upsert in a transaction), so concurrent requests on any instance never lose a
 * count and each hit learns its own position in the window.
 */

export interface RateLimitResult {
  /** True while this hit is within the limit (hits ≤ limit). */
  allowed: boolean;
  /** Hits counted in the current window, this one included. */
  hits: number;
  limit: number;
  /** Seconds until the current window ends and the count starts again from zero. */
  retryAfterSeconds: number;
}

const TABLE = 'rate_limit_counters';
const MAX_BUCKET_LENGTH = 191;

function windowOf(windowSeconds: number, now: Date): { start: Date; end: Date } {
  if (!Number.isInteger(windowSeconds) || windowSeconds <= 0) throw new RangeError(`windowSeconds must be a positive integer, got ${windowSeconds}`);
  const length = windowSeconds * 1000;
  const start = Math.floor(now.getTime() / length) * length;
  return { start: new Date(start), end: new Date(start + length) };
}

function checkBucket(bucket: string): void {
  if (bucket === '' || bucket.length > MAX_BUCKET_LENGTH) throw new RangeError(`a rate-limit bucket has 1 to ${MAX_BUCKET_LENGTH} characters`);
}

/**
 * Counts one hit in `bucket` and says whether it is still allowed: at most `limit` hits per fixed window of
 * `windowSeconds`. Hits past the limit are counted too (they never unblock the window early).
 */
export async function hit(db: Database, bucket: string, windowSeconds: number, limit: number, now: Date = new Date()): Promise<RateLimitResult> {
  checkBucket(bucket);
  const window = windowOf(windowSeconds, now);
  // InnoDB may pick a concurrent upsert of a brand-new key as a deadlock victim; withTransaction reruns it.
  const hits = await withTransaction(db, async (trx) => {
    await trx(TABLE)
      .insert({ bucket, window_start: window.start, hits: 1, expires_at: window.end })
      .onConflict(['bucket', 'window_start'])
      .merge({ hits: trx.raw('?? + 1', [`${TABLE}.hits`]) });
    // Read inside the transaction: the row stays locked (MySQL) or the write serialised (SQLite) until commit, so
    // this is the count as of this very hit, never including hits that come after it.
    const row = (await trx(TABLE).where({ bucket, window_start: window.start }).first('hits')) as { hits: number | string } | undefined;
    return row ? Number(row.hits) : 1;
  });
  // The first hit of a window also drops the bucket's finished windows, keeping the table as small as the live buckets.
  if (hits === 1) await db(TABLE).where({ bucket }).andWhere('expires_at', '<=', now).delete();
  return { allowed: hits <= limit, hits, limit, retryAfterSeconds: Math.max(1, Math.ceil((window.end.getTime() - now.getTime()) / 1000)) };
}

/** Takes back one hit of the current window, e.g. an attempt that turned out to succeed when only failures count. */
export async function release(db: Database, bucket: string, windowSeconds: number, now: Date = new Date()): Promise<void> {
  checkBucket(bucket);
  const window = windowOf(windowSeconds, now);
  await db(TABLE).where({ bucket, window_start: window.start }).andWhere('hits', '>', 0).update({ hits: db.raw('?? - 1', [`${TABLE}.hits`]) });
}

/** Hits counted so far in the current window, without counting one. */
export async function currentHits(db: Database, bucket: string, windowSeconds: number, now: Date = new Date()): Promise<number> {
  const window = windowOf(windowSeconds, now);
  const row = (await db(TABLE).where({ bucket, window_start: window.start }).first('hits')) as { hits: number | string } | undefined;
  return row ? Number(row.hits) : 0;
}
