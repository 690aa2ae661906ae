import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { ServiceUnavailableError } from '../shared/errors.js';
import type { Database } from './connection.js';

/**
 * Errors that mean "another transaction won": the whole transaction is safe to run again from its first statement.
 * - ER_LOCK_DEADLOCK (1213): an InnoDB deadlock victim, and how a Galera node reports a certification failure or a
 *   brute-force abort by a replicated write set ("Deadlock: wsrep aborted transaction").
 * - ER_LOCK_WAIT_TIMEOUT (1205): a row lock held longer than innodb_lock_wait_timeout.
 * - ER_CHECKREAD (1020): "Record has changed since last read" under MariaDB's snapshot isolation.
 * - SQLITE_BUSY / SQLITE_BUSY_SNAPSHOT: another process holds the SQLite write lock past the busy timeout.
 */
const CONFLICT_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'ER_CHECKREAD', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']);
const CONFLICT_ERRNOS = new Set([1213, 1205, 1020]);

export function isTransactionConflict(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, errno } = error as Error & { code?: unknown; errno?: unknown };
  if (typeof code === 'string' && CONFLICT_CODES.has(code)) return true;
  if (typeof errno === 'number' && CONFLICT_ERRNOS.has(errno)) return true;
  // Galera names its aborts in the message whatever code the driver attaches.
  return /\bWSREP\b.*\b(conflict|aborted|certification)\b/i.test(error.message) || /wsrep aborted transaction/i.test(error.message);
}

/** A transaction that kept losing conflicts: the request gets 503 temporarily_unavailable with Retry-After, never 500. */
export class TransactionConflictError extends ServiceUnavailableError {
  constructor(attempts: number) {
    super(`the change conflicted with concurrent changes ${attempts} times in a row; retry shortly`);
  }
}

export interface TransactionOptions {
  /** Runs of the whole transaction before giving up; 8 unless set. */
  attempts?: number;
}

const DEFAULT_ATTEMPTS = 8;
const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 250;

/** Full jitter (delay drawn from [0, min(cap, base·2ⁿ)]) keeps retrying losers from colliding again in lock step. */
function backoffMs(attempt: number): number {
  return Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
}

/**
 * The one way to run a transaction. `work` may run more than once: when the database picks this transaction as a
 * deadlock victim, times out a lock wait, fails a Galera certification or finds SQLite busy, the transaction is
 * rolled back and run again from the start after a short jittered pause, up to `attempts` times; then
 * TransactionConflictError (503). So `work` must do nothing outside the database that a second run would repeat
 * wrongly, and must read what it decides on inside the transaction.
 *
 * Lock order, wherever rows of one table chain to each other (token pairs): parent before child.
 *
 * Inside another transaction, `work` runs in a savepoint without retries: a conflict aborts the outer transaction,
 * which is the one to run again.
 */
export async function withTransaction<T>(db: Database, work: (trx: Knex.Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  if (db.isTransaction) return db.transaction(work);
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction(work);
    } catch (error) {
      if (!isTransactionConflict(error)) throw error;
      if (attempt >= attempts) throw new TransactionConflictError(attempts);
      await sleep(backoffMs(attempt));
    }
  }
}
