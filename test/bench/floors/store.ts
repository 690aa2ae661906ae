/**
 * The floors' own connection to the product's database: the driver itself (mysql2 or better-sqlite3), no knex, each
 * SQL text prepared once (mysql2 `execute`, a server-side prepared statement per connection; better-sqlite3 `prepare`,
 * kept per text), so a floor pays for the round trip and the driver and nothing else. `record` sees every statement
 * a floor issues, so a test can hold the floor to the product's statements (test/bench-floors.test.ts).
 */
import type BetterSqlite3 from 'better-sqlite3';
import mysql from 'mysql2';
import type { DatabaseConfig } from '../../../src/config/database-url.js';
import { mysqlConnectionSettings } from '../../../src/db/connection.js';
import { sqliteDriver } from '../../../src/db/sqlite-driver.js';

export type Row = Record<string, unknown>;

/** What a floor runs statements on: the store, or one transaction's connection. */
export interface StatementRunner {
  all(sql: string, values: readonly unknown[]): Promise<Row[]>;
  /** An INSERT, UPDATE or transaction statement; the new row's id for an INSERT. */
  run(sql: string, values: readonly unknown[]): Promise<{ insertId: number }>;
}

export interface RawStore extends StatementRunner {
  kind: 'mysql' | 'sqlite';
  /** `work` on one connection between `begin` and `commit` (the product's own texts); rolled back when it throws. */
  transaction<T>(begin: string, commit: string, work: (tx: StatementRunner) => Promise<T>): Promise<T>;
  record: ((sql: string) => void) | null;
  close(): Promise<void>;
}

/** `work` on `tx` between the product's `begin` and `commit` texts; `rollback` when anything in it throws. */
async function inTransaction<T>(tx: StatementRunner, begin: string, commit: string, work: (tx: StatementRunner) => Promise<T>, rollback: () => unknown): Promise<T> {
  try {
    await tx.run(begin, []);
    const result = await work(tx);
    await tx.run(commit, []);
    return result;
  } catch (error) {
    await rollback();
    throw error;
  }
}

export function openRawStore(config: DatabaseConfig): RawStore {
  return config.client === 'sqlite' ? openSqlite(config.filename) : openMysql(config);
}

/** mysql2's callback API wrapped by hand: its promise wrapper captures a stack trace on every call, which the product's driver calls do not pay. */
function answerOf<T>(call: (callback: (error: Error | null, answer: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => call((error, answer) => (error ? reject(error) : resolve(answer))));
}

function openMysql(config: Extract<DatabaseConfig, { client: 'mysql' }>): RawStore {
  // The product's connection settings and its pool of 10 (src/db/connection.ts).
  const pool = mysql.createPool({ ...mysqlConnectionSettings(config), connectionLimit: 10 });
  type Answer = mysql.RowDataPacket[] | mysql.ResultSetHeader;
  const runner = (connection: mysql.Pool | mysql.PoolConnection, store: RawStore): StatementRunner => ({
    async all(sql, values) {
      store.record?.(sql);
      return (await answerOf<Answer>((callback) => connection.execute(sql, values as mysql.ExecuteValues[], callback))) as Row[];
    },
    async run(sql, values) {
      store.record?.(sql);
      // BEGIN and COMMIT go by the text protocol, as knex sends them: MariaDB prepares no transaction control.
      const result = await answerOf<Answer>((callback) => (values.length === 0 ? connection.query(sql, callback) : connection.execute(sql, values as mysql.ExecuteValues[], callback)));
      return { insertId: Number((result as mysql.ResultSetHeader).insertId ?? 0) };
    },
  });
  const store: RawStore = {
    kind: 'mysql',
    record: null,
    all: (sql, values) => runner(pool, store).all(sql, values),
    run: (sql, values) => runner(pool, store).run(sql, values),
    async transaction(begin, commit, work) {
      const connection = await answerOf<mysql.PoolConnection>((callback) => pool.getConnection(callback));
      try {
        return await inTransaction(runner(connection, store), begin, commit, work, () => answerOf<Answer>((callback) => connection.query('ROLLBACK', callback)).catch(() => undefined));
      } finally {
        connection.release();
      }
    },
    close: () => answerOf<void>((callback) => pool.end((error) => callback(error ?? null, undefined))),
  };
  return store;
}

/** How knex's better-sqlite3 dialect binds values (times as epoch milliseconds, booleans as 0/1), so rows read the same. */
function sqliteValue(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'boolean') return Number(value);
  return value === undefined ? null : value;
}

function openSqlite(filename: string): RawStore {
  const Driver = sqliteDriver() as typeof BetterSqlite3;
  const connection = new Driver(filename);
  // The product's connection pragmas (src/db/connection.ts).
  connection.pragma('journal_mode = WAL');
  connection.pragma('busy_timeout = 5000');
  connection.pragma('foreign_keys = ON');
  const prepared = new Map<string, BetterSqlite3.Statement>();
  const prepare = (sql: string) => {
    let statement = prepared.get(sql);
    if (statement === undefined) {
      statement = connection.prepare(sql);
      prepared.set(sql, statement);
    }
    return statement;
  };
  const direct = (store: RawStore): StatementRunner => ({
    all(sql, values) {
      store.record?.(sql);
      return Promise.resolve(prepare(sql).all(...values.map(sqliteValue)) as Row[]);
    },
    run(sql, values) {
      store.record?.(sql);
      return Promise.resolve({ insertId: Number(prepare(sql).run(...values.map(sqliteValue)).lastInsertRowid) });
    },
  });
  // One connection, as the product's pool of one: a statement waits while another request's transaction is open
  // (the handlers await between statements, so requests interleave on the event loop).
  let open: Promise<void> | null = null;
  const store: RawStore = {
    kind: 'sqlite',
    record: null,
    async all(sql, values) {
      while (open) await open;
      return direct(store).all(sql, values);
    },
    async run(sql, values) {
      while (open) await open;
      return direct(store).run(sql, values);
    },
    async transaction(begin, commit, work) {
      while (open) await open;
      let release = () => undefined as void;
      open = new Promise<void>((resolve) => (release = resolve));
      try {
        return await inTransaction(direct(store), begin, commit, work, () => connection.inTransaction && connection.exec('ROLLBACK'));
      } finally {
        open = null;
        release();
      }
    },
    close: () => {
      connection.close();
      return Promise.resolve();
    },
  };
  return store;
}
