import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../db/connection.js';
import { logFailure } from '../shared/failure-log.js';
import type { Logger } from '../shared/logger.js';
import { startRepeatingJob } from '../shared/repeating-job.js';
import { flushUses, pendingUses } from '../usage/tally.js';
import { newHolderId, releaseLease, takeLease } from './lease.js';

/** The lease (`job_leases`) one instance at a time flushes under. */
export const USAGE_FLUSH_LEASE = 'usage-flush';
/** A flush writes a few batches; an instance that dies holding the lease blocks the others for this long at most. */
const LEASE_TTL_MS = 60_000;
/** At shutdown the tally would be lost with the process: wait this many times for an instance flushing at that moment. */
const FINAL_FLUSH_ATTEMPTS = 20;
const FINAL_FLUSH_PAUSE_MS = 250;

export interface UsageFlushJob {
  /** No further runs; then the last flush of what this process still holds (at shutdown). */
  stop(): Promise<void>;
}

/**
 * Writes the usage counts this process holds in memory (src/usage/tally.ts, docs/usage.md) every `intervalSeconds`
 * and when the server stops, off the request path, so that no member API, MCP or admin request writes them. Every
 * instance flushes its own tally, one instance at a time under the `usage-flush` lease: flushes never contend for
 * the same rows (an InnoDB deadlock or a Galera certification failure would rerun whole batches), and an instance
 * that finds the lease held keeps its counts for its next run. The writes are additive, so the order of instances does not matter. Failures are logged, never
 * thrown; the counts stay in memory for the next run.
 */
export function startUsageFlushJob(db: Database, logger: Logger, options: { intervalSeconds: number }): UsageFlushJob {
  const intervalMs = options.intervalSeconds * 1000;
  if (!(intervalMs >= 0)) throw new RangeError('the usage flush interval cannot be negative');
  const holder = newHolderId();
  const log = logger.child({ job: 'usage-flush' });

  /** True when the tally is written (or was empty); false when another instance held the lease or the write failed. */
  const flushOnce = async (): Promise<boolean> => {
    if (pendingUses(db) === 0) return true;
    try {
      if (!(await takeLease(db, USAGE_FLUSH_LEASE, holder, LEASE_TTL_MS))) return false;
      let written: number | undefined;
      try {
        written = await flushUses(db);
      } finally {
        // The report of a run that failed stays the last good one (releaseLease).
        await releaseLease(db, USAGE_FLUSH_LEASE, holder, written === undefined ? undefined : { written });
      }
      log.debug({ written }, 'usage counts written');
      return true;
    } catch (error) {
      // An outage is logged once by the database health state; only a fault of ours carries a stack (failure-log.ts).
      logFailure(log, error, 'could not write the usage counts; keeping them for the next run', { pending: pendingUses(db) });
      return false;
    }
  };

  // 0: no timer; the counts are written when the server stops.
  const job =
    intervalMs > 0
      ? startRepeatingJob(intervalMs, intervalMs, async () => {
          await flushOnce();
        })
      : null;

  return {
    async stop() {
      await job?.stop();
      for (let attempt = 1; attempt <= FINAL_FLUSH_ATTEMPTS; attempt += 1) {
        if (await flushOnce()) return;
        await sleep(FINAL_FLUSH_PAUSE_MS);
      }
      log.error({ pending: pendingUses(db) }, 'usage counts not written at shutdown');
    },
  };
}
