import { ConfigError } from './config-error.js';

/** How long the service waits for its database before it answers 503 (docs/operations.md, "Database outages"). */
export interface DatabaseTimeouts {
  /** Opening a MySQL connection (TCP and handshake); the health probe waits at least 2 s for its whole question. */
  connectMs: number;
  /** Waiting for a pooled connection (a free one, or a new one being opened). */
  acquireMs: number;
  /** A row or table lock (MySQL's session lock wait timeouts, whole seconds rounded up; SQLite's busy timeout). */
  lockWaitMs: number;
  /**
   * The time after which a transaction that lost a conflict is not run again (src/db/transaction.ts): long enough for
   * a storm of a hundred concurrent refreshes of one token to go through, which is the database answering, not an outage.
   */
  transactionBudgetMs: number;
  /** While the database does not answer, how often a probe asks again. */
  probeIntervalMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: Readonly<DatabaseTimeouts> = {
  connectMs: 1000,
  acquireMs: 2000,
  lockWaitMs: 3000,
  transactionBudgetMs: 10000,
  probeIntervalMs: 250,
};

function parseMilliseconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < 1) throw new ConfigError(`${name}: "${raw}" is not a number of milliseconds (1 or more)`);
  return value;
}

export function parseDatabaseTimeouts(env: NodeJS.ProcessEnv): DatabaseTimeouts {
  return {
    connectMs: parseMilliseconds(env, 'SCHOOLGATE_DB_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectMs),
    acquireMs: parseMilliseconds(env, 'SCHOOLGATE_DB_ACQUIRE_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.acquireMs),
    lockWaitMs: parseMilliseconds(env, 'SCHOOLGATE_DB_LOCK_WAIT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.lockWaitMs),
    transactionBudgetMs: parseMilliseconds(env, 'SCHOOLGATE_DB_TRANSACTION_BUDGET_MS', DEFAULT_DATABASE_TIMEOUTS.transactionBudgetMs),
    probeIntervalMs: parseMilliseconds(env, 'SCHOOLGATE_DB_PROBE_INTERVAL_MS', DEFAULT_DATABASE_TIMEOUTS.probeIntervalMs),
  };
}
