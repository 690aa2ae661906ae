import type { Database } from '../db/connection.js';
import { logFailure } from '../shared/failure-log.js';
import type { Logger } from '../shared/logger.js';
import { newHolderId } from './lease.js';
import { PruneInterrupted, pruneUnderLease } from './run-prune.js';
import { startRepeatingJob, type RepeatingJob } from '../shared/repeating-job.js';

export interface PruneJobOptions {
  /** Seconds between runs of this instance; the server does not start the job when this is 0. */
  intervalSeconds: number;
  retentionDays: number;
  /** Days of usage counts kept (config.usageRetentionDays). */
  usageRetentionDays?: number;
  batchSize?: number;
  /** Percent of a run's time spent in batches (config.prune.dutyPercent); the rest is pauses between them. */
  dutyPercent?: number;
}

export type PruneJob = RepeatingJob;

/** The first run waits a random part of this (or of the interval, if shorter): a fleet restarted at once spreads out. */
const FIRST_RUN_SPREAD_MS = 5 * 60 * 1000;

/**
 * The in-server prune: every `intervalSeconds`, off the request path, under the database lease so one
 * instance of the fleet does the work. A run that finds a run finished less than half an interval ago skips, so the
 * fleet prunes about once per interval, not once per instance. Failures are logged, never thrown; the timer is
 * unref()ed so it never keeps a process alive.
 */
export function startPruneJob(db: Database, logger: Logger, options: PruneJobOptions): PruneJob {
  const intervalMs = options.intervalSeconds * 1000;
  if (!(intervalMs > 0)) throw new RangeError('the prune job needs an interval of at least one second');
  const holder = newHolderId();
  const log = logger.child({ job: 'prune' });

  const runOnce = async (isStopped: () => boolean): Promise<void> => {
    try {
      const outcome = await pruneUnderLease(db, {
        holder,
        retentionDays: options.retentionDays,
        usageRetentionDays: options.usageRetentionDays,
        batchSize: options.batchSize,
        dutyPercent: options.dutyPercent,
        unlessFinishedAfter: new Date(Date.now() - intervalMs / 2),
        shouldStop: isStopped,
      });
      if (outcome.ran) log.info({ deleted: outcome.report.deleted, total: outcome.report.total, durationMs: outcome.report.durationMs, pausedMs: outcome.report.pausedMs }, 'pruned expired records');
      else log.debug({ holder: outcome.lease?.holder ?? null, lastFinishedAt: outcome.lease?.lastFinishedAt ?? null }, 'prune skipped: another instance holds the lease or ran recently');
    } catch (error) {
      if (error instanceof PruneInterrupted) log.info(error.message);
      else logFailure(log, error, 'prune failed; trying again at the next interval');
    }
  };

  return startRepeatingJob(intervalMs, Math.min(intervalMs, FIRST_RUN_SPREAD_MS), runOnce);
}
