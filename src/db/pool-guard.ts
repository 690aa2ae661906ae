import type { Knex } from 'knex';
import { DatabaseUnavailableError } from '../shared/errors.js';
import { DatabaseHealth } from './health.js';

/** The part of knex's client the guard wraps (knex types its client as `any`). */
export interface PooledClient {
  acquireConnection(): Promise<object>;
  releaseConnection(connection: object): Promise<void>;
  acquireRawConnection(): Promise<object>;
  destroy(callback?: unknown): Promise<void>;
}

interface MysqlRawConnection {
  query(sql: string, callback: (error: Error | null, rows?: unknown) => void): void;
  destroy(): void;
  stream?: { destroy(): void };
}

interface SqliteRawConnection {
  prepare(sql: string): { get(): unknown };
  close(): void;
}

/** A connection a request holds this long makes the health state look at the store (a query may be hanging). */
const STALL_MS = 300;
/**
 * The probe's own patience: a machine under load (or a store busy with a migration) may take a second to answer, and a
 * slow answer is not an outage. A black-holed store is still found down within this and STALL_MS.
 */
const MIN_PROBE_TIMEOUT_MS = 2000;

/** Answered as knex's own acquire timeout is: the database is unavailable (503). */
class AcquiredTooLateError extends Error {
  override readonly name = 'KnexTimeoutError';
  constructor() {
    super('Knex: Timeout acquiring a connection (handed over past the acquire timeout)');
  }
}

const healthOfDatabase = new WeakMap<Knex, DatabaseHealth>();

/** What knex attaches to a pooled connection: its id, and the mark its pool's validation reads to destroy it. */
interface KnexPooled {
  __knexUid?: string;
  __knex__disposed?: unknown;
}

const ENDS_TRANSACTION = /^\s*(rollback|commit)\b/i;
const ER_LOCK_DEADLOCK = 1213;

/**
 * Whether a failed statement may have left its connection inside a transaction: a ROLLBACK that failed (a Galera node
 * refusing it with errno 1047, a lost connection), or a COMMIT that failed otherwise than as a deadlock victim (which
 * the server has rolled back whole). Such a connection would keep its old snapshot: reads on it would miss rows other
 * connections wrote since, so it is destroyed instead of being handed out again.
 */
function leavesTransactionOpen(error: unknown, sql: unknown): boolean {
  if (typeof sql !== 'string' || !ENDS_TRANSACTION.test(sql)) return false;
  const errno = (error as { errno?: unknown } | null)?.errno;
  return !(/^\s*commit\b/i.test(sql) && errno === ER_LOCK_DEADLOCK);
}

/** The health state of a pool opened by openDatabase (src/db/connection.ts); null for one opened elsewhere. */
export function databaseHealth(db: Knex): DatabaseHealth | null {
  return healthOfDatabase.get(db) ?? null;
}

/**
 * The probe's first question on MySQL reads a table: a Galera node that refuses clients (still joining, or told to
 * with wsrep_reject_queries) answers `SELECT 1` without a table but refuses any table with errno 1047. Before the
 * first migration the table is missing (errno 1146), which is still the database answering.
 */
export const MYSQL_PROBE_STATEMENT = 'SELECT 1 FROM knex_migrations LIMIT 1';
const ER_NO_SUCH_TABLE = 1146;

/** The probe's error, unless it only says the table is not there yet. */
export function probeFailure(error: (Error & { errno?: number }) | null): Error | null {
  return error && error.errno !== ER_NO_SUCH_TABLE ? error : null;
}

/** Whether Galera replication is on (no row on MySQL; OFF on a MariaDB that is not part of a cluster). */
export const GALERA_ON_STATEMENT = "SHOW VARIABLES LIKE 'wsrep_on'";
/** Whether a Galera node serves: a node cut off from the primary component (or still joining) says OFF. */
export const GALERA_READY_STATEMENT = "SHOW STATUS LIKE 'wsrep_ready'";

/** The `Value` column of a one-row SHOW answer says ON. */
export function showsOn(rows: unknown): boolean {
  const row = Array.isArray(rows) ? (rows[0] as { Value?: unknown } | undefined) : undefined;
  return typeof row?.Value === 'string' && row.Value.toUpperCase() === 'ON';
}

/** A table read, then Galera's readiness, on a MySQL connection of its own, opened and closed within `timeoutMs`. */
function probeMysql(client: PooledClient) {
  return (timeoutMs: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      let connection: MysqlRawConnection | null = null;
      let settled = false;
      const finish = (error: Error | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        connection?.destroy();
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(() => finish(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
      client.acquireRawConnection().then(
        (raw) => {
          connection = raw as MysqlRawConnection;
          if (settled) connection.destroy();
          else {
            const open = connection;
            open.query(MYSQL_PROBE_STATEMENT, (queryError) => {
              const error = probeFailure(queryError);
              if (error) finish(error);
              else
                open.query(GALERA_ON_STATEMENT, (variableError, variables) => {
                  if (variableError || !showsOn(variables)) finish(variableError);
                  // A node may still read a table while cut off from the primary component, if it allows dirty reads.
                  else open.query(GALERA_READY_STATEMENT, (statusError, status) => finish(statusError ?? (showsOn(status) ? null : new Error('WSREP: the node is not ready (wsrep_ready is OFF)'))));
                });
            });
          }
        },
        (error: unknown) => finish(error instanceof Error ? error : new Error(String(error))),
      );
    });
}

/** `select 1` on an SQLite connection of its own: whether the file can be opened and read. */
function probeSqlite(client: PooledClient) {
  return async (): Promise<void> => {
    const connection = (await client.acquireRawConnection()) as SqliteRawConnection;
    try {
      connection.prepare('select 1').get();
    } finally {
      connection.close();
    }
  };
}

/** Cuts a MySQL connection's socket: a query waiting on it fails with PROTOCOL_CONNECTION_LOST, and the pool drops it. */
function cutMysql(connection: object): void {
  (connection as MysqlRawConnection).stream?.destroy();
}

/**
 * Puts the health state (src/db/health.ts) in front of the pool: an acquisition is refused at once while the store is
 * known down, every checkout and release is recorded (to see a hanging query), and an acquisition or query that fails
 * as "unreachable" makes the state probe the store.
 */
export function guardPool(db: Knex, client: PooledClient, options: { probeIntervalMs: number; probeTimeoutMs: number; acquireMs: number; store: 'sqlite' | 'mysql' }): DatabaseHealth {
  const health = new DatabaseHealth({
    probe: options.store === 'mysql' ? probeMysql(client) : probeSqlite(client),
    abandon: options.store === 'mysql' ? cutMysql : () => undefined,
    probeIntervalMs: options.probeIntervalMs,
    probeTimeoutMs: Math.max(MIN_PROBE_TIMEOUT_MS, options.probeTimeoutMs),
    stallMs: STALL_MS,
  });
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);
  const destroy = client.destroy.bind(client);
  const heldById = new Map<string, KnexPooled>();
  client.acquireConnection = async () => {
    health.admit();
    const started = Date.now();
    try {
      const pending = acquire();
      const connection = await health.whileHealthy(pending).catch((error: unknown) => {
        // Given up on while queued: the connection, if the pool hands one over later, goes straight back.
        if (error instanceof DatabaseUnavailableError) pending.then((late) => release(late), () => undefined);
        throw error;
      });
      // Handed over past the acquire timeout: the process was blocked meanwhile (better-sqlite3 waits for a lock
      // synchronously), so the pool's timer could not fire. The request has waited long enough: 503 now.
      if (Date.now() - started > options.acquireMs) {
        await release(connection);
        throw new AcquiredTooLateError();
      }
      health.checkedOut(connection);
      const id = (connection as KnexPooled).__knexUid;
      if (id !== undefined) heldById.set(id, connection as KnexPooled);
      return connection;
    } catch (error) {
      health.reportFailure(error);
      throw error;
    }
  };
  client.releaseConnection = (connection) => {
    health.released(connection);
    const id = (connection as KnexPooled).__knexUid;
    if (id !== undefined) heldById.delete(id);
    return release(connection);
  };
  client.destroy = (callback) => {
    health.stop();
    return destroy(callback);
  };
  db.on('query-response', () => health.reportSuccess());
  db.on('query-error', (error: unknown, query: { __knexUid?: unknown; sql?: unknown } | undefined) => {
    health.reportFailure(error);
    const connection = typeof query?.__knexUid === 'string' ? heldById.get(query.__knexUid) : undefined;
    // knex's pool validates a connection before handing it out again, and destroys one marked disposed.
    if (connection !== undefined && leavesTransactionOpen(error, query?.sql)) connection.__knex__disposed = 'its transaction did not end (ROLLBACK or COMMIT failed)';
  });
  healthOfDatabase.set(db, health);
  return health;
}
