import type { Knex } from 'knex';
import { tracingIsOn } from '../shared/tracing.js';
import type { Database } from './connection.js';
import { CompiledStatement, driverBindings, runOnConnection, type KnexClient } from './direct-statements.js';
import { knexStatements } from './direct-transaction.js';

export interface CompiledSelectOptions {
  /**
   * For a statement whose text depends on how many values it binds (an `IN` list): at most this many values are
   * compiled, one text per count, and a call with more is built by knex each time.
   */
  maxValues?: number;
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
export function compiledSelect<Row, Values extends readonly Knex.Value[]>(
  build: (db: Database, ...values: Values) => Knex.QueryBuilder,
  options: CompiledSelectOptions = {},
): (db: Database, ...values: Values) => Promise<Row[]> {
  const statement = new CompiledStatement<Values>(build);
  const maxValues = options.maxValues ?? Number.POSITIVE_INFINITY;
  return async (db, ...values) => {
    // Beyond the bound, one text per number of values would pile up: such a statement is built each time.
    if (values.length > maxValues) return (await build(db, ...values)) as Row[];
    // A transaction runs on its own connection, and tracing reports knex's spans: both go through knex.
    if (db.isTransaction || tracingIsOn()) return knexStatements(db).rows<Row, Values>(statement, values);
    return runOnPool<Row>(db.client as KnexClient, statement.sql(db, values), driverBindings(db, values));
  };
}

async function runOnPool<Row>(client: KnexClient, sql: string, bindings: unknown[]): Promise<Row[]> {
  const connection = await client.acquireConnection();
  try {
    return (await runOnConnection(client, connection, sql, bindings)) as Row[];
  } finally {
    await client.releaseConnection(connection);
  }
}
