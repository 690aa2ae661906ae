import { DEFAULT_PRUNE_DUTY_PERCENT, DEFAULT_USAGE_RETENTION_DAYS } from '../config/config.js';
import type { Database } from '../db/connection.js';
import { countMatches, deleteInBatches } from './batches.js';
import { pauseAfter, sleep as realSleep, type Sleep } from './pace.js';
import { cutoffsAt, PRUNE_TARGETS, pruneRules, type PruneTarget } from './prune-rules.js';

/** The retention of revoked and expired tokens when nothing else is configured (SCHOOLGATE_PRUNE_RETENTION_DAYS). */
export const DEFAULT_RETENTION_DAYS = 7;
/** Rows per statement: small enough that no DELETE holds its locks for long. */
export const DEFAULT_BATCH_SIZE = 1000;

export interface PruneOptions {
  now?: Date;
  retentionDays?: number;
  /** Days of usage counts kept (SCHOOLGATE_USAGE_RETENTION_DAYS, docs/usage.md). */
  usageRetentionDays?: number;
  batchSize?: number;
  /** Count what would be deleted, delete nothing. */
  dryRun?: boolean;
  /** Percent of the run's time spent in batches, 1 to 100: after each batch the prune pauses in proportion (pace.ts). */
  dutyPercent?: number;
  /** Called before every batch; throwing stops the run (see BatchOptions). */
  beforeBatch?: () => Promise<void>;
  /** For tests: how the pause waits, and the clock batches are timed by (milliseconds). */
  sleep?: Sleep;
  clock?: () => number;
}

export interface PruneReport {
  /** Rows deleted (or, in a dry run, rows that would be) per kind of record. */
  deleted: Record<PruneTarget, number>;
  total: number;
  retentionDays: number;
  usageRetentionDays: number;
  batchSize: number;
  dutyPercent: number;
  /** Milliseconds spent pausing between batches, part of durationMs. */
  pausedMs: number;
  dryRun: boolean;
  startedAt: string;
  durationMs: number;
}

function checkPositiveInteger(value: number, name: string, allowZero = false): void {
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) throw new RangeError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${value}`);
}

/**
 * Deletes expired and long-revoked records in bounded batches (docs/housekeeping.md): finished rate-limit windows,
 * authorization requests, sign-in sessions and unused codes a day past their expiry, token pairs revoked or expired
 * more than `retentionDays` ago, used codes once their grant has no pair left, and metadata-document clients nothing
 * refers to. Safe to run from any instance at any time; the lease (run-prune.ts) only keeps two from doing it at once.
 */
export async function prune(db: Database, options: PruneOptions = {}): Promise<PruneReport> {
  const now = options.now ?? new Date();
  const retentionDays = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const usageRetentionDays = options.usageRetentionDays ?? DEFAULT_USAGE_RETENTION_DAYS;
  const dutyPercent = options.dutyPercent ?? DEFAULT_PRUNE_DUTY_PERCENT;
  checkPositiveInteger(retentionDays, 'retentionDays', true);
  checkPositiveInteger(usageRetentionDays, 'usageRetentionDays');
  checkPositiveInteger(batchSize, 'batchSize');
  checkPositiveInteger(dutyPercent, 'dutyPercent');
  if (dutyPercent > 100) throw new RangeError(`dutyPercent must be at most 100, got ${dutyPercent}`);
  const started = performance.now();
  const pause = options.sleep ?? realSleep;
  let pausedMs = 0;
  const afterBatch = async (batchMs: number) => {
    const ms = pauseAfter(batchMs, dutyPercent);
    if (ms <= 0) return;
    pausedMs += ms;
    await pause(ms);
  };
  const batches = { batchSize, beforeBatch: options.beforeBatch, afterBatch, clock: options.clock };
  const deleted = Object.fromEntries(PRUNE_TARGETS.map((target) => [target, 0])) as Record<PruneTarget, number>;
  for (const rule of pruneRules(cutoffsAt(now, retentionDays, usageRetentionDays))) {
    deleted[rule.target] += options.dryRun ? await countMatches(db, rule) : await deleteInBatches(db, rule, batches);
  }
  return {
    deleted,
    total: Object.values(deleted).reduce((sum, count) => sum + count, 0),
    retentionDays,
    usageRetentionDays,
    batchSize,
    dutyPercent,
    pausedMs: Math.round(pausedMs),
    dryRun: options.dryRun ?? false,
    startedAt: now.toISOString(),
    durationMs: Math.round(performance.now() - started),
  };
}
