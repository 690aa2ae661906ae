import type { Database } from './connection.js';
import { withTransaction } from './transaction.js';

/**
 * Sliding-window rate limiting over the `rate_limit_counters` table, so every instance sharing the database shares
 * the counts (sign-in per account and per address, failed token requests per client, anonymous authorization
 * requests, metadata-document fetches).
 *
 * A bucket is any string up to 191 characters naming what is counted, e.g. `sign-in:address:203.0.113.7`. Time is
 * cut into windows of `windowSeconds` aligned to the epoch; each (bucket, window) is one row whose `hits` the
 * database increments atomically (an upsert in a transaction), so concurrent requests on any instance never lose a
 * count and each hit learns its own position in the window. The limit applies to a sliding window of the same
 * length: the current window's hits plus the previous window's hits weighted by the part of the previous window the
 * sliding window still covers (the sliding-window counter of Cloudflare and nginx's limit_req family), so a window
 * boundary never starts the count again from zero. A row is kept until the end of the window after its own, as
 * long as it can still weigh.
 */

export interface RateLimitResult {
  /** True while this hit is within the limit (the sliding count, this hit included, is at most the limit). */
  allowed: boolean;
  /** Hits counted in the current fixed window, this one included: the hit's exact position among concurrent ones. */
  hits: number;
  /** The sliding-window count the decision used: `hits` plus the previous window's hits × their remaining weight. */
  count: number;
  limit: number;
  /** Seconds until one more hit would be allowed again, at least 1. */
  retryAfterSeconds: number;
}

const TABLE = 'rate_limit_counters';
const MAX_BUCKET_LENGTH = 191;

interface SlidingWindow {
  lengthMs: number;
  start: Date;
  previousStart: Date;
  end: Date;
  /** Milliseconds of the current window already gone. */
  elapsedMs: number;
}

function windowOf(windowSeconds: number, now: Date): SlidingWindow {
  if (!Number.isInteger(windowSeconds) || windowSeconds <= 0) throw new RangeError(`windowSeconds must be a positive integer, got ${windowSeconds}`);
  const lengthMs = windowSeconds * 1000;
  const start = Math.floor(now.getTime() / lengthMs) * lengthMs;
  return { lengthMs, start: new Date(start), previousStart: new Date(start - lengthMs), end: new Date(start + lengthMs), elapsedMs: now.getTime() - start };
}

/** The share of the previous fixed window that the sliding window ending now still covers (1 at a boundary, 0 at the next). */
function previousWeight(window: SlidingWindow): number {
  return 1 - window.elapsedMs / window.lengthMs;
}

/**
 * Milliseconds until one more hit fits under `limit`: within this window, once the previous window's weight has
 * decayed enough; otherwise into the next window, once this window's hits (then the previous ones) have.
 */
function msUntilAllowed(window: SlidingWindow, current: number, previous: number, limit: number): number {
  const room = limit - 1 - current;
  if (room >= 0) {
    if (previous <= room) return 0;
    return Math.max(0, (1 - room / previous) * window.lengthMs - window.elapsedMs);
  }
  // In the next window the count is 1 + current × (1 - elapsed / length); limit - 1 ≥ 0 hits may remain from this one.
  const leftHere = window.lengthMs - window.elapsedMs;
  return leftHere + Math.max(0, 1 - Math.max(0, limit - 1) / current) * window.lengthMs;
}

function checkBucket(bucket: string): void {
  if (bucket === '' || bucket.length > MAX_BUCKET_LENGTH) throw new RangeError(`a rate-limit bucket has 1 to ${MAX_BUCKET_LENGTH} characters`);
}

type CountRow = { window_start: Date | string | number; hits: number | string };

/** The hits of the current and the previous window among `rows` (the bucket's rows of both windows). */
function split(rows: CountRow[], window: SlidingWindow): { current: number; previous: number } {
  let current = 0;
  let previous = 0;
  for (const row of rows) {
    const start = new Date(row.window_start).getTime();
    if (start === window.start.getTime()) current = Number(row.hits);
    else if (start === window.previousStart.getTime()) previous = Number(row.hits);
  }
  return { current, previous };
}

function readBothWindows(db: Database, bucket: string, window: SlidingWindow): Promise<CountRow[]> {
  return db(TABLE).where({ bucket }).whereIn('window_start', [window.start, window.previousStart]).select('window_start', 'hits') as Promise<CountRow[]>;
}

/**
 * Counts one hit in `bucket` and says whether it is still allowed: at most `limit` hits per sliding window of
 * `windowSeconds`. Hits past the limit are counted too (they never unblock the window early).
 */
export async function hit(db: Database, bucket: string, windowSeconds: number, limit: number, now: Date = new Date()): Promise<RateLimitResult> {
  checkBucket(bucket);
  const window = windowOf(windowSeconds, now);
  // A row weighs until the end of the window after its own.
  const expiresAt = new Date(window.end.getTime() + window.lengthMs);
  // InnoDB may pick a concurrent upsert of a brand-new key as a deadlock victim; withTransaction reruns it.
  const counts = await withTransaction(db, async (trx) => {
    await trx(TABLE)
      .insert({ bucket, window_start: window.start, hits: 1, expires_at: expiresAt })
      .onConflict(['bucket', 'window_start'])
      .merge({ hits: trx.raw('?? + 1', [`${TABLE}.hits`]) });
    // Read inside the transaction, the previous window's row with it (one statement): the current row stays locked
    // (MySQL) or the write serialised (SQLite) until commit, so this is the count as of this very hit.
    return split(await readBothWindows(trx, bucket, window), window);
  });
  const hits = Math.max(1, counts.current);
  // The first hit of a window also drops the bucket's rows that no longer weigh, keeping the table as small as the live buckets.
  if (hits === 1) await db(TABLE).where({ bucket }).andWhere('expires_at', '<=', now).delete();
  const count = hits + counts.previous * previousWeight(window);
  const retryAfterMs = msUntilAllowed(window, hits, counts.previous, limit);
  // The tolerance absorbs floating-point error at the exact moment Retry-After named.
  return { allowed: count <= limit + 1e-9, hits, count, limit, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
}

/**
 * Takes back `count` hits of the current window (never below zero), e.g. an attempt that turned out to succeed when
 * only failures count.
 */
export async function release(db: Database, bucket: string, windowSeconds: number, count = 1, now: Date = new Date()): Promise<void> {
  checkBucket(bucket);
  if (!Number.isInteger(count) || count <= 0) return;
  const window = windowOf(windowSeconds, now);
  await db(TABLE)
    .where({ bucket, window_start: window.start })
    .andWhere('hits', '>', 0)
    .update({ hits: db.raw('CASE WHEN ?? > ? THEN ?? - ? ELSE 0 END', [`${TABLE}.hits`, count, `${TABLE}.hits`, count]) });
}

/** The sliding-window count of `bucket` so far (the current window's hits plus the previous window's, weighted), without counting one. */
export async function currentHits(db: Database, bucket: string, windowSeconds: number, now: Date = new Date()): Promise<number> {
  const window = windowOf(windowSeconds, now);
  const { current, previous } = split(await readBothWindows(db, bucket, window), window);
  return current + previous * previousWeight(window);
}
