import os from 'node:os';
import type { Database } from '../db/connection.js';
import { toDate } from '../db/connection.js';
import { withTransaction } from '../db/transaction.js';
import { randomToken } from '../shared/random.js';

/**
 * A lease on a named job, kept in `job_leases` (migration 0013) so that instances sharing the database agree on who
 * runs it; no process-local lock could. Taking it is a compare-and-set UPDATE that succeeds only when
 * nobody holds the lease or the holder's lease has run out, so a holder that crashed blocks others only until then.
 * Times come from the instance's clock: leases are minutes long, far longer than any sane clock skew.
 */

const TABLE = 'job_leases';

export interface LeaseState {
  name: string;
  holder: string | null;
  leaseExpiresAt: Date;
  lastStartedAt: Date | null;
  lastFinishedAt: Date | null;
  lastReport: unknown;
}

interface LeaseRow {
  name: string;
  holder: string | null;
  lease_expires_at: unknown;
  last_started_at: unknown;
  last_finished_at: unknown;
  last_report: string | null;
}

/** A holder name that tells operators which instance it is and is never reused by another run. */
export function newHolderId(): string {
  return `${os.hostname()}/${process.pid}/${randomToken(6)}`;
}

export interface TakeOptions {
  now?: Date;
  /** Refuse when a run finished after this instant: lets a fleet run the job once per interval, not once per instance. */
  unlessFinishedAfter?: Date;
}

/** Takes the lease for `ttlMs` if it is free or expired; true when this holder now has it. */
export async function takeLease(db: Database, name: string, holder: string, ttlMs: number, options: TakeOptions = {}): Promise<boolean> {
  const now = options.now ?? new Date();
  // The row exists once per job; a second instance inserting at the same moment is ignored, not an error.
  await db(TABLE).insert({ name, holder: null, lease_expires_at: new Date(0) }).onConflict('name').ignore();
  const taken = await withTransaction(db, (trx) => {
    const update = trx(TABLE)
      .where({ name })
      .andWhere((q) => q.whereNull('holder').orWhere('lease_expires_at', '<=', now));
    const { unlessFinishedAfter } = options;
    if (unlessFinishedAfter) update.andWhere((q) => q.whereNull('last_finished_at').orWhere('last_finished_at', '<=', unlessFinishedAfter));
    return update.update({ holder, lease_expires_at: new Date(now.getTime() + ttlMs), last_started_at: now });
  });
  return taken === 1;
}

/** Extends a lease this holder still has; false when it ran out and someone else took it. */
export async function renewLease(db: Database, name: string, holder: string, ttlMs: number, now: Date = new Date()): Promise<boolean> {
  const renewed = await withTransaction(db, (trx) => trx(TABLE).where({ name, holder }).update({ lease_expires_at: new Date(now.getTime() + ttlMs) }));
  return renewed === 1;
}

/** Gives the lease back (if still held) and records the run; `report` undefined = the run failed, keep the last one. */
export async function releaseLease(db: Database, name: string, holder: string, report?: unknown, now: Date = new Date()): Promise<void> {
  await withTransaction(db, (trx) =>
    trx(TABLE)
      .where({ name, holder })
      .update({ holder: null, lease_expires_at: now, ...(report === undefined ? {} : { last_finished_at: now, last_report: JSON.stringify(report) }) }),
  );
}

export async function readLease(db: Database, name: string): Promise<LeaseState | null> {
  const row = await db<LeaseRow>(TABLE).where({ name }).first();
  if (!row) return null;
  return {
    name: row.name,
    holder: row.holder,
    leaseExpiresAt: toDate(row.lease_expires_at) ?? new Date(0),
    lastStartedAt: toDate(row.last_started_at),
    lastFinishedAt: toDate(row.last_finished_at),
    lastReport: row.last_report === null ? null : (JSON.parse(row.last_report) as unknown),
  };
}
