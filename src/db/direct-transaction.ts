import type { Knex } from 'knex';
import { tracingIsOn } from '../shared/tracing.js';
import type { Database } from './connection.js';
import { isMysql } from './dialect.js';
import { controlTransaction, driverBindings, runOnConnection, type CompiledStatement, type KnexClient, type PooledConnection, type WriteResult } from './direct-statements.js';
import { rerunningConflicts, withTransaction, type TransactionOptions } from './transaction.js';

/** The statements a direct transaction's work may issue: compiled ones only, each bound to its values. */
export interface TransactionStatements {
  /** A SELECT's rows. */
  rows<Row, Values extends readonly Knex.Value[]>(statement: CompiledStatement<Values>, values: Values): Promise<Row[]>;
  /** An INSERT's new id, an UPDATE's count of changed rows. */
  write<Values extends readonly Knex.Value[]>(statement: CompiledStatement<Values>, values: Values): Promise<WriteResult>;
}

/** knex's own wording, as its transaction says it: a statement after COMMIT or ROLLBACK is a bug in the work. */
const ENDED = 'Transaction query already complete';
/** How long a ROLLBACK is waited for, as knex's transaction waits. */
const ROLLBACK_TIMEOUT_MS = 5000;

let transactions = 0;

/**
 * withTransaction (src/db/transaction.ts) for a hot path whose statements are all compiled (CompiledStatement): the
 * same conflict reruns, attempts and time budget, the same BEGIN, COMMIT and ROLLBACK texts and query events, on a
 * connection of knex's own guarded pool (its acquire timeout, the health state's fail-fast refusal and stall
 * detection), but without knex's per-transaction knex instance, its query builder and its runner, which cost a short
 * transaction more than its round trips. On MySQL each statement is a server-side prepared statement.
 *
 * Inside a knex transaction, and while tracing is on (knex's spans), the work runs through withTransaction on knex.
 */
export async function withDirectTransaction<T>(db: Database, work: (tx: TransactionStatements) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  if (db.isTransaction || tracingIsOn()) return withTransaction(db, (trx) => work(knexStatements(trx)), options);
  return rerunningConflicts(db, () => runDirectly(db, work), options);
}

/**
 * One run, as knex's transaction runs it: BEGIN (plain, deferred on SQLite, as knex begins), the work, then COMMIT; a
 * failed BEGIN or COMMIT is the run's error, with no ROLLBACK after it; work that throws is rolled back and its error
 * is the run's, unless the ROLLBACK itself fails, whose error then is. A failed COMMIT or ROLLBACK may leave the
 * connection inside its transaction: the pool's guard, told by the `query-error` event, has it destroyed.
 */
async function runDirectly<T>(db: Database, work: (tx: TransactionStatements) => Promise<T>): Promise<T> {
  const client = db.client as KnexClient;
  const connection = await client.acquireConnection();
  transactions += 1;
  connection.__knexTxId = `trx-direct${transactions}`;
  const tx = new DirectStatements(db, client, connection);
  try {
    await controlTransaction(client, connection, 'BEGIN;');
    let result: T;
    try {
      result = await work(tx);
    } catch (error) {
      tx.ended = true;
      throw await rolledBack(client, connection, error);
    }
    tx.ended = true;
    await controlTransaction(client, connection, 'COMMIT;');
    return result;
  } finally {
    tx.ended = true;
    delete connection.__knexTxId;
    await client.releaseConnection(connection);
  }
}

/** The error the run fails with after rolling back for `error`. */
async function rolledBack(client: KnexClient, connection: PooledConnection, error: unknown): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), ROLLBACK_TIMEOUT_MS);
  });
  try {
    const outcome = await Promise.race([controlTransaction(client, connection, 'ROLLBACK'), timedOut]);
    // Not answered in time: the connection is busy with it still, so it is destroyed rather than handed out again.
    if (outcome === 'timed out') connection.__knex__disposed = 'its ROLLBACK did not answer';
    return error;
  } catch (rollbackError) {
    return rollbackError;
  } finally {
    clearTimeout(timer);
  }
}

class DirectStatements implements TransactionStatements {
  ended = false;

  constructor(
    private readonly db: Database,
    private readonly client: KnexClient,
    private readonly connection: PooledConnection,
  ) {}

  async rows<Row, Values extends readonly Knex.Value[]>(statement: CompiledStatement<Values>, values: Values): Promise<Row[]> {
    return (await this.run(statement, values)) as Row[];
  }

  async write<Values extends readonly Knex.Value[]>(statement: CompiledStatement<Values>, values: Values): Promise<WriteResult> {
    return (await this.run(statement, values)) as WriteResult;
  }

  private run<Values extends readonly Knex.Value[]>(statement: CompiledStatement<Values>, values: Values): Promise<unknown> {
    if (this.ended) return Promise.reject(new Error(ENDED));
    return runOnConnection(this.client, this.connection, statement.sql(this.db, values), driverBindings(this.db, values));
  }
}

/** The same statements through knex (its runner, its spans): in a knex transaction, or on the pool as any statement. */
export function knexStatements(db: Database): TransactionStatements {
  const mysql = isMysql(db);
  const run = async <Values extends readonly Knex.Value[]>(statement: CompiledStatement<Values>, values: Values): Promise<unknown> => {
    const answer: unknown = await db.raw(statement.sql(db, values), [...values]);
    // knex hands back the driver's answer to a raw statement: [rows or a result header, fields] from mysql2; the
    // rows, or { changes, lastInsertRowid }, from better-sqlite3.
    return mysql ? (answer as [unknown, unknown])[0] : answer;
  };
  return {
    rows: async <Row, Values extends readonly Knex.Value[]>(statement: CompiledStatement<Values>, values: Values) => (await run(statement, values)) as Row[],
    write: async <Values extends readonly Knex.Value[]>(statement: CompiledStatement<Values>, values: Values) => {
      const answer = (await run(statement, values)) as { insertId?: number; affectedRows?: number; changes?: number; lastInsertRowid?: number | bigint };
      return mysql ? { insertId: Number(answer.insertId ?? 0), changes: Number(answer.affectedRows ?? 0) } : { insertId: Number(answer.lastInsertRowid ?? 0), changes: Number(answer.changes ?? 0) };
    },
  };
}
