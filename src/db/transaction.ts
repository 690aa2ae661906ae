import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { TransactionConflictError } from '../shared/errors.js';
import { isTransactionConflict } from '../shared/failure.js';
import type { Database } from './connection.js';
import { databaseTimeouts } from './timeouts.js';

export interface TransactionOptions {
  /** Runs of the whole transaction before giving up; 20 unless set (a conflict storm loses many times, each fast). */
  attempts?: number;
  /**
   * Milliseconds after the first run began past which no further run starts (SCHOOLGATE_DB_TRANSACTION_BUDGET_MS
   * unless set): a run that waited out a lock wait timeout is not followed by another such wait.
   */
  budgetMs?: number;
}

const DEFAULT_ATTEMPTS = 20;
const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 250;

/** Full jitter (delay drawn from [0, min(cap, base·2ⁿ)]) keeps retrying losers from colliding again in lock step. */
function backoffMs(attempt: number): number {
  return Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
}

/**
 * The one way to run a transaction. `work` may run more than once: when the database picks this transaction as a
 * deadlock victim, times out a lock wait, fails a Galera certification or finds SQLite busy, the transaction is
 * rolled back and run again from the start after a short jittered pause, up to `attempts` times and while the time
 * budget lasts; then TransactionConflictError (503). So `work` must do nothing outside the database that a second run would repeat
 * wrongly, and must read what it decides on inside the transaction.
 *
 * Lock order, wherever rows of one table chain to each other (token pairs): parent before child.
 *
 * Inside another transaction, `work` runs in a savepoint without retries: a conflict aborts the outer transaction,
 * which is the one to run again.
 */
export async function withTransaction<T>(db: Database, work: (trx: Knex.Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  if (db.isTransaction) return db.transaction(work);
  return rerunningConflicts(db, () => db.transaction(work), options);
}

/**
 * Runs `run` (one whole transaction) again after a conflict, after a jittered pause, up to `options.attempts` times
 * and while the time budget lasts; then TransactionConflictError. withTransaction's and withDirectTransaction's
 * (src/db/direct-transaction.ts) retries.
 */
export async function rerunningConflicts<T>(db: Database, run: () => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const deadline = Date.now() + (options.budgetMs ?? databaseTimeouts(db).transactionBudgetMs);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (!isTransactionConflict(error)) throw error;
      const pause = backoffMs(attempt);
      if (attempt >= attempts || Date.now() + pause >= deadline) throw new TransactionConflictError(attempt);
      await sleep(pause);
    }
  }
}
