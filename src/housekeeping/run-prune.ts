import type { Database } from '../db/connection.js';
import { newHolderId, readLease, releaseLease, renewLease, takeLease, type LeaseState } from './lease.js';
import { prune, type PruneOptions, type PruneReport } from './prune.js';

/** The job_leases row of the prune, shared by the server's interval job and `schoolgate prune`. */
export const PRUNE_JOB = 'prune';
/** A lease outlives any pause between two batches many times over; a crashed holder blocks others for this long. */
export const PRUNE_LEASE_TTL_MS = 5 * 60 * 1000;

/** The run stopped between two batches: the lease ran out and someone else took it, or the server is stopping. */
export class PruneInterrupted extends Error {
  override readonly name = 'PruneInterrupted';
}

export interface LeasedPruneOptions extends Omit<PruneOptions, 'beforeBatch' | 'dryRun'> {
  holder?: string;
  leaseTtlMs?: number;
  /** Skip the run when another finished after this instant (the interval job: once per interval across the fleet). */
  unlessFinishedAfter?: Date;
  /** Checked before every batch; true stops the run (shutdown). */
  shouldStop?: () => boolean | Promise<boolean>;
}

export type LeasedPruneOutcome = { ran: true; report: PruneReport } | { ran: false; lease: LeaseState | null };

/**
 * Runs the prune while holding the `prune` lease, renewing it between batches; gives it back afterwards, with the
 * report. When the lease is taken (or a run finished recently enough), nothing runs and the lease is returned.
 */
export async function pruneUnderLease(db: Database, options: LeasedPruneOptions = {}): Promise<LeasedPruneOutcome> {
  const holder = options.holder ?? newHolderId();
  const ttlMs = options.leaseTtlMs ?? PRUNE_LEASE_TTL_MS;
  if (!(await takeLease(db, PRUNE_JOB, holder, ttlMs, { unlessFinishedAfter: options.unlessFinishedAfter }))) {
    return { ran: false, lease: await readLease(db, PRUNE_JOB) };
  }
  let renewedAt = Date.now();
  const beforeBatch = async () => {
    if (await options.shouldStop?.()) throw new PruneInterrupted('the prune was stopped between two batches');
    if (Date.now() - renewedAt < ttlMs / 3) return;
    if (!(await renewLease(db, PRUNE_JOB, holder, ttlMs))) throw new PruneInterrupted(`the ${PRUNE_JOB} lease ran out and was taken by another instance`);
    renewedAt = Date.now();
  };
  let report: PruneReport;
  try {
    report = await prune(db, { ...options, beforeBatch });
  } catch (error) {
    // The run's own error says more than a failed release (the lease then simply runs out).
    await releaseLease(db, PRUNE_JOB, holder).catch(() => undefined);
    throw error;
  }
  await releaseLease(db, PRUNE_JOB, holder, report);
  return { ran: true, report };
}
