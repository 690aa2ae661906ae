import type { Knex } from 'knex';
import type { Database } from './connection.js';
import { isMysql } from './dialect.js';

/** What the direct path uses of knex's client (knex types its client as `any`): its pool (guarded, src/db/pool-guard.ts) and its events. */
export interface KnexClient {
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: PooledConnection): Promise<unknown>;
  emit(event: string, ...args: unknown[]): boolean;
}

interface SqliteStatement {
  reader: boolean;
  all(values: unknown[]): unknown[];
  run(values: unknown[]): { changes: number; lastInsertRowid: number | bigint };
}

interface MysqlWriteResult {
  insertId?: number;
  affectedRows?: number;
}

/**
 * A pooled connection: mysql2's or better-sqlite3's (whose `prepare` keeps each statement, src/db/sqlite-driver.ts),
 * with knex's ids and the mark knex's pool destroys a connection by.
 */
export interface PooledConnection {
  __knexUid?: string;
  __knexTxId?: string;
  __knex__disposed?: unknown;
  execute?: (sql: string, values: unknown[], callback: (error: Error | null, rows: unknown) => void) => void;
  query?: (sql: string, callback: (error: Error | null, rows: unknown) => void) => void;
  prepare?: (sql: string) => SqliteStatement;
}

/** What a write answers: the new row's id (an INSERT's) and how many rows it changed. */
export interface WriteResult {
  insertId: number;
  changes: number;
}

/**
 * A statement built with knex once per SQL dialect and number of values, and afterwards only bound: compiling a
 * statement costs knex more per request than the round trip it makes.
 *
 * `build` receives the first call's values and must use each one as a plain binding (a `where` value or a raw
 * fragment's binding, never a null in a `where`, an array or SQL text), so that the SQL text depends on nothing but
 * how many values there are; the first build of each shape checks that knex bound exactly the values, in order.
 */
export class CompiledStatement<Values extends readonly Knex.Value[]> {
  private readonly sqlByShape = new Map<string, string>();

  constructor(private readonly build: (db: Database, ...values: Values) => Knex.QueryBuilder | Knex.Raw) {}

  sql(db: Database, values: Values): string {
    // The two stores the product runs on. (The SQLite client is configured as a driver class, whose text would make
    // a costly map key.)
    const shape = `${isMysql(db) ? 'mysql' : 'sqlite'}:${values.length}`;
    let sql = this.sqlByShape.get(shape);
    if (sql === undefined) {
      const built = this.build(db, ...values).toSQL();
      const bindings = Array.isArray(built) ? [] : built.bindings;
      if (Array.isArray(built) || bindings.length !== values.length || bindings.some((binding, index) => binding !== values[index])) {
        throw new Error('a compiled statement must bind exactly the values it is given, in order, in one statement');
      }
      sql = built.sql;
      this.sqlByShape.set(shape, sql);
    }
    return sql;
  }
}

/**
 * A one-row INSERT into `table` of `columns`, compiled once per dialect. `values` lists a row's values in the order
 * of the statement's column list (knex sorts an insert's columns by name; the first build checks it did).
 */
export function compiledInsert<Column extends string>(table: string, columns: readonly Column[]): { statement: CompiledStatement<Knex.Value[]>; values(row: Readonly<Record<Column, Knex.Value>>): Knex.Value[] } {
  const ordered = [...columns].sort();
  return {
    statement: new CompiledStatement<Knex.Value[]>((db, ...values) => db(table).insert(Object.fromEntries(ordered.map((column, index) => [column, values[index]])))),
    values: (row) => ordered.map((column) => row[column]),
  };
}

/** How knex's better-sqlite3 dialect binds values: times as epoch milliseconds, booleans as 0/1. */
export function sqliteBinding(value: Knex.Value): unknown {
  if (value instanceof Date) return value.valueOf();
  return typeof value === 'boolean' ? Number(value) : value;
}

/** The values as the store's driver takes them (mysql2 binds them itself). */
export function driverBindings(db: Database, values: readonly Knex.Value[]): unknown[] {
  return isMysql(db) ? [...values] : values.map(sqliteBinding);
}

/**
 * Runs one statement on a connection the caller holds, without knex's runner (its query object, bindings rewrite and
 * promise chain cost more than the driver's own work), and says so as the runner does: the same `query`,
 * `query-response` and `query-error` events, which the pool's health state (src/db/pool-guard.ts) and the
 * statement-counting tests listen to. Answers a SELECT's rows, or a write's WriteResult.
 */
export async function runOnConnection(client: KnexClient, connection: PooledConnection, sql: string, bindings: unknown[]): Promise<unknown> {
  const query = { __knexUid: connection.__knexUid, __knexTxId: connection.__knexTxId, method: 'raw', sql, bindings, options: {} };
  try {
    client.emit('query', query);
    const answer = connection.execute ? writeResultOrRows(await executeOnMysql(connection, sql, bindings)) : runOnSqlite(connection, sql, bindings);
    client.emit('query-response', answer, query);
    return answer;
  } catch (error) {
    // As knex's runner words it: the statement, then the driver's message.
    if (error instanceof Error) error.message = `${sql} - ${error.message}`;
    client.emit('query-error', error, query);
    throw error;
  }
}

/**
 * A transaction's BEGIN, COMMIT or ROLLBACK, said as knex's transaction says it: a `query` event, and a `query-error`
 * when it fails (which the pool's guard reads to destroy a connection left inside a transaction), no response event.
 * On MySQL by the text protocol: MariaDB prepares no transaction control.
 */
export async function controlTransaction(client: KnexClient, connection: PooledConnection, sql: string): Promise<void> {
  const query = { __knexUid: connection.__knexUid, __knexTxId: connection.__knexTxId, sql, bindings: [] };
  try {
    client.emit('query', query);
    if (connection.query) await queryOnMysql(connection, sql);
    else runOnSqlite(connection, sql, []);
  } catch (error) {
    if (error instanceof Error) error.message = `${sql} - ${error.message}`;
    client.emit('query-error', error, query);
    throw error;
  }
}

function runOnSqlite(connection: PooledConnection, sql: string, bindings: unknown[]): unknown {
  const statement = connection.prepare?.(sql);
  if (statement === undefined) throw new Error('the pooled connection is neither mysql2 nor better-sqlite3');
  if (statement.reader) return statement.all(bindings);
  const { changes, lastInsertRowid } = statement.run(bindings);
  return { insertId: Number(lastInsertRowid), changes } satisfies WriteResult;
}

function writeResultOrRows(answer: unknown): unknown {
  if (Array.isArray(answer)) return answer;
  const header = answer as MysqlWriteResult;
  return { insertId: Number(header.insertId ?? 0), changes: Number(header.affectedRows ?? 0) } satisfies WriteResult;
}

/**
 * A server-side prepared statement (mysql2 keeps each per connection): the server parses and plans the text once per
 * connection instead of on every request, and the values travel apart from it.
 */
function executeOnMysql(connection: PooledConnection, sql: string, bindings: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    connection.execute?.(sql, bindings, (error, rows) => (error ? reject(error) : resolve(rows)));
  });
}

function queryOnMysql(connection: PooledConnection, sql: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    connection.query?.(sql, (error, rows) => (error ? reject(error) : resolve(rows)));
  });
}
