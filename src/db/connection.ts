import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../config/database-timeouts.js';
import type { DatabaseConfig } from '../config/database-url.js';
import { guardPool, type PooledClient } from './pool-guard.js';
import { betterSqliteClient } from './sqlite-driver.js';
import { PREPARED_STATEMENTS_PER_CONNECTION } from './statement-cache.js';
import { rememberDatabaseTimeouts } from './timeouts.js';

export type Database = Knex;

interface SqliteConnection {
  pragma(statement: string): unknown;
}

export { databaseTimeouts } from './timeouts.js';

/** Where knex's own warnings go (e.g. "Can't take lock to run migrations"); never stdout, which holds our output. */
export type KnexWarningSink = (message: string) => void;

const warnOnStderr: KnexWarningSink = (message) => process.stderr.write(`knex: ${message}\n`);

// A connection the pool could not get is the request's failure (a 503) and, once, the health state's log line
// (src/db/health.ts): knex's own warning repeats it with a stack for every waiting request.
const ACQUIRE_FAILURE = /^Acquire connection error/;

function knexLog(warn: KnexWarningSink) {
  return {
    warn: (message: unknown) => {
      if (!ACQUIRE_FAILURE.test(String(message))) warn(String(message));
    },
    // Errors also reach the caller as rejections, which say it once and in context.
    error: () => undefined,
    deprecate: (method: unknown, alternative: unknown) => warn(`${String(method)} is deprecated, use ${String(alternative)}`),
    debug: () => undefined,
  };
}

/**
 * Opens the store: SQLite through better-sqlite3 when no DATABASE_URL is set (the embedded default),
 * MySQL/MariaDB through mysql2 otherwise. Every time is read and written in UTC. The pool fails fast while the
 * store does not answer (src/db/pool-guard.ts, src/db/health.ts).
 */
export function openDatabase(config: DatabaseConfig, warn: KnexWarningSink = warnOnStderr, timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS): Database {
  const db = config.client === 'sqlite' ? openSqlite(config.filename, warn, timeouts) : openMysql(config, warn, timeouts);
  rememberDatabaseTimeouts(db, timeouts);
  guardPool(db, db.client as PooledClient, { probeIntervalMs: timeouts.probeIntervalMs, probeTimeoutMs: timeouts.connectMs, acquireMs: timeouts.acquireMs, store: config.client });
  return db;
}

function openSqlite(filename: string, warn: KnexWarningSink, timeouts: DatabaseTimeouts): Database {
  fs.mkdirSync(path.dirname(filename), { recursive: true });
  return knexFactory({
    client: betterSqliteClient(),
    log: knexLog(warn),
    connection: { filename },
    useNullAsDefault: true,
    acquireConnectionTimeout: timeouts.acquireMs,
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: SqliteConnection) => void) {
        // WAL + busy timeout let the CLI write while a server process holds the file open. better-sqlite3 waits for
        // a lock synchronously (the whole process waits), so the wait is short: past it, SQLITE_BUSY is a 503.
        connection.pragma('journal_mode = WAL');
        connection.pragma(`busy_timeout = ${timeouts.lockWaitMs}`);
        connection.pragma('foreign_keys = ON');
        done(null, connection);
      },
    },
  });
}

/**
 * The mysql2 settings of every product connection: UTC times, utf8mb4, big numbers answered as numbers (ids and
 * counts stay below 2^53), and a bounded statement cache. The bench's floors open their connections with them too.
 */
export function mysqlConnectionSettings(config: Extract<DatabaseConfig, { client: 'mysql' }>) {
  return {
    host: config.host,
    port: config.port,
    user: config.user,
    password: config.password,
    database: config.database,
    timezone: 'Z',
    charset: 'utf8mb4',
    supportBigNumbers: true,
    bigNumberStrings: false,
    maxPreparedStatements: PREPARED_STATEMENTS_PER_CONNECTION,
  };
}

function openMysql(config: Extract<DatabaseConfig, { client: 'mysql' }>, warn: KnexWarningSink, timeouts: DatabaseTimeouts): Database {
  const lockWaitSeconds = Math.max(1, Math.ceil(timeouts.lockWaitMs / 1000));
  return knexFactory({
    client: 'mysql2',
    log: knexLog(warn),
    connection: { ...mysqlConnectionSettings(config), connectTimeout: timeouts.connectMs },
    pool: { min: 0, max: 10, afterCreate: (connection: MysqlConnection, done: SessionDone) => boundLockWaits(connection, lockWaitSeconds, (error) => (error ? done(error, connection) : readCausally(connection, done))) },
    acquireConnectionTimeout: timeouts.acquireMs,
  });
}

interface MysqlConnection {
  query(sql: string, callback: (error: (Error & { errno?: number }) | null) => void): void;
}

type SessionDone = (error: Error | null, connection: MysqlConnection) => void;

const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;

/**
 * A row lock (innodb_lock_wait_timeout, 50 s by default) or a table's metadata lock (lock_wait_timeout, a year by
 * default) is waited for only this long: past it the statement fails with ER_LOCK_WAIT_TIMEOUT, which the
 * transaction retries within its budget (src/db/transaction.ts) and then answers 503.
 */
function boundLockWaits(connection: MysqlConnection, seconds: number, done: (error: Error | null) => void): void {
  connection.query(`SET SESSION innodb_lock_wait_timeout = ${seconds}, lock_wait_timeout = ${seconds}`, (error) => done(error));
}

/**
 * Causal reads on a Galera cluster: a node applies other nodes' write sets a moment after they commit, so without this
 * an instance on node 2 could accept a token that node 1 revoked a few milliseconds ago, or not find a code node 1
 * just issued. `wsrep_sync_wait = 1` makes each read wait until the node has applied everything committed before it
 * began. Without Galera (wsrep off) the setting does nothing; servers that do not know the variable (MySQL) skip it.
 */
function readCausally(connection: MysqlConnection, done: SessionDone): void {
  connection.query('SET SESSION wsrep_sync_wait = 1', (error) => done(error && error.errno !== ER_UNKNOWN_SYSTEM_VARIABLE ? error : null, connection));
}

export { isMysql } from './dialect.js';

/** Rows come back as Date (MySQL) or epoch milliseconds (SQLite); both mean a UTC instant. */
export function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  if (typeof value === 'string') return new Date(/^\d+$/.test(value) ? Number(value) : value);
  throw new TypeError(`not a time value: ${String(value)}`);
}

export function requireDate(value: unknown): Date {
  const date = toDate(value);
  if (date === null) throw new TypeError('expected a time value, got null');
  return date;
}

/** JSON columns are text on SQLite and may be text on MariaDB too. */
export function parseJsonColumn<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
