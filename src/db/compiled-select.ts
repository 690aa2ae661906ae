import type { Knex } from 'knex';
import { tracingIsOn } from '../shared/tracing.js';
import { isMysql, type Database } from './connection.js';

/** What the direct path uses of knex's client (knex types its client as `any`): its pool (guarded, src/db/pool-guard.ts) and its events. */
interface KnexClient {
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: PooledConnection): Promise<unknown>;
  emit(event: string, ...args: unknown[]): boolean;
}

/** A pooled connection: mysql2's or better-sqlite3's (whose `prepare` keeps each statement, src/db/sqlite-driver.ts), with knex's ids. */
interface PooledConnection {
  __knexUid?: string;
  __knexTxId?: string;
  execute?: (sql: string, values: unknown[], callback: (error: Error | null, rows: unknown) => void) => void;
  prepare?: (sql: string) => { all(values: unknown[]): unknown[] };
}

/**
 * A SELECT for a hot path, built with knex once per SQL dialect and afterwards only bound. Compiling a wide, aliased
 * column list costs knex more per request than the round trip it makes (about a tenth of a userinfo request).
 *
 * `build` receives the first call's values and must use each one as a plain binding (a `where` value, never a null,
 * an array or a raw fragment), so that the SQL text is the same whatever the values are.
 *
 * Outside a transaction and while tracing is off, the statement runs on a connection of knex's own pool without
 * knex's runner (its query object, bindings rewrite and promise chain cost more than better-sqlite3's own work), and
 * says so as the runner does: the same `query`, `query-response` and `query-error` events, which the pool's health
 * state (src/db/pool-guard.ts) and the statement-counting tests listen to. The pool, its acquire timeout and the
 * health state's fail-fast refusal are the same as for any other statement.
 */
export function compiledSelect<Row, Values extends readonly Knex.Value[]>(build: (db: Database, ...values: Values) => Knex.QueryBuilder): (db: Database, ...values: Values) => Promise<Row[]> {
  const sqlByDialect = new Map<'mysql' | 'sqlite', string>();
  return async (db, ...values) => {
    // The two stores the product runs on. (The SQLite client is configured as a driver class, whose text would make
    // a costly map key.)
    const mysql = isMysql(db);
    const dialect = mysql ? 'mysql' : 'sqlite';
    let sql = sqlByDialect.get(dialect);
    if (sql === undefined) {
      const built = build(db, ...values).toSQL();
      if (built.bindings.length !== values.length || built.bindings.some((binding, index) => binding !== values[index])) {
        throw new Error('compiledSelect: the statement must bind exactly the values it is given, in order');
      }
      sql = built.sql;
      sqlByDialect.set(dialect, sql);
    }
    // A transaction runs on its own connection, and tracing reports knex's spans: both go through knex.
    if (db.isTransaction || tracingIsOn()) {
      const result: unknown = await db.raw(sql, [...values]);
      // knex hands back the driver's answer to a raw statement: [rows, fields] from mysql2, the rows from better-sqlite3.
      return (mysql ? (result as [Row[], unknown])[0] : result) as Row[];
    }
    return runOnPool<Row>(db.client as KnexClient, sql, mysql ? [...values] : values.map(sqliteBinding));
  };
}

/** How knex's better-sqlite3 dialect binds values: times as epoch milliseconds, booleans as 0/1. */
function sqliteBinding(value: Knex.Value): unknown {
  if (value instanceof Date) return value.valueOf();
  return typeof value === 'boolean' ? Number(value) : value;
}

async function runOnPool<Row>(client: KnexClient, sql: string, bindings: unknown[]): Promise<Row[]> {
  const connection = await client.acquireConnection();
  const query = { __knexUid: connection.__knexUid, __knexTxId: connection.__knexTxId, method: 'raw', sql, bindings, options: {} };
  try {
    client.emit('query', query);
    const rows = (await (connection.execute ? executeOnMysql(connection, sql, bindings) : connection.prepare?.(sql).all(bindings))) as Row[];
    client.emit('query-response', rows, query);
    return rows;
  } catch (error) {
    // As knex's runner words it: the statement, then the driver's message.
    if (error instanceof Error) error.message = `${sql} - ${error.message}`;
    client.emit('query-error', error, query);
    throw error;
  } finally {
    await client.releaseConnection(connection);
  }
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
