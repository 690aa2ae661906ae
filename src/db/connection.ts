import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { DatabaseConfig } from '../config/database-url.js';
import { betterSqliteClient } from './sqlite-driver.js';

export type Database = Knex;

interface SqliteConnection {
  pragma(statement: string): unknown;
}

/** Where knex's own warnings go (e.g. "Can't take lock to run migrations"); never stdout, which holds our output. */
export type KnexWarningSink = (message: string) => void;

const warnOnStderr: KnexWarningSink = (message) => process.stderr.write(`knex: ${message}\n`);

function knexLog(warn: KnexWarningSink) {
  return {
    warn: (message: unknown) => warn(String(message)),
    // Errors also reach the caller as rejections, which say it once and in context.
    error: () => undefined,
    deprecate: (method: unknown, alternative: unknown) => warn(`${String(method)} is deprecated, use ${String(alternative)}`),
    debug: () => undefined,
  };
}

/**
 * Opens the store: SQLite through better-sqlite3 when no DATABASE_URL is set (the embedded default),
 * MySQL/MariaDB through mysql2 otherwise. Every time is read and written in UTC.
 */
export function openDatabase(config: DatabaseConfig, warn: KnexWarningSink = warnOnStderr): Database {
  if (config.client === 'sqlite') {
    fs.mkdirSync(path.dirname(config.filename), { recursive: true });
    return knexFactory({
      client: betterSqliteClient(),
      log: knexLog(warn),
      connection: { filename: config.filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: SqliteConnection) => void) {
          // WAL + busy timeout let the CLI write while a server process holds the file open.
          connection.pragma('journal_mode = WAL');
          connection.pragma('busy_timeout = 5000');
          connection.pragma('foreign_keys = ON');
          done(null, connection);
        },
      },
    });
  }
  return knexFactory({
    client: 'mysql2',
    log: knexLog(warn),
    connection: {
      host: config.host,
      port: config.port,
      user: config.user,
      password: config.password,
      database: config.database,
      timezone: 'Z',
      charset: 'utf8mb4',
      connectTimeout: 5000,
      supportBigNumbers: true,
      bigNumberStrings: false,
    },
    pool: { min: 0, max: 10, afterCreate: readCausally },
    acquireConnectionTimeout: 10000,
  });
}

interface MysqlConnection {
  query(sql: string, callback: (error: (Error & { errno?: number }) | null) => void): void;
}

const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;

/**
 * Causal reads on a Galera cluster: a node applies other nodes' write sets a moment after they commit, so without this
 * an instance on node 2 could accept a token that node 1 revoked a few milliseconds ago, or not find a code node 1
 * just issued. `wsrep_sync_wait = 1` makes each read wait until the node has applied everything committed before it
 * began. Without Galera (wsrep off) the setting does nothing; servers that do not know the variable (MySQL) skip it.
 */
function readCausally(connection: MysqlConnection, done: (error: Error | null, connection: MysqlConnection) => void): void {
  connection.query('SET SESSION wsrep_sync_wait = 1', (error) => done(error && error.errno !== ER_UNKNOWN_SYSTEM_VARIABLE ? error : null, connection));
}

export function isMysql(db: Database): boolean {
  return db.client.config.client === 'mysql2';
}

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
