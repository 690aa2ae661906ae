import { AppError, ServiceUnavailableError, TransactionConflictError } from './errors.js';

/**
 * The one classifier of failures. Whatever a request's work throws (a domain error, a driver error, an error Koa or a
 * stream raised, a bug) is one of a few kinds, and every interface renders the kind in its own format: OAuth JSON or
 * an HTML page (src/http/errors.ts), admin problem+json (src/admin/api/problems.ts), GraphQL (src/graphql/errors.ts),
 * MCP tool and JSON-RPC errors (src/mcp/tool.ts, src/mcp/handler-errors.ts).
 */
export type FailureKind =
  /** The request's own fault (4xx), with its own code: answered as it is. */
  | 'client'
  /** The database could not be reached or timed out: 503 temporarily_unavailable, retry after Retry-After. */
  | 'database_unavailable'
  /** A transaction kept losing to concurrent ones (or a lone statement lost once): 503 temporarily_unavailable. */
  | 'conflict_lost'
  /** Anything else: a fault of ours, logged, its text never shown unless it is one of our own errors. */
  | 'internal';

export interface Failure {
  kind: FailureKind;
  /** The failure as every interface words it: HTTP status, public code, message and extra headers. */
  error: AppError;
}

/** A failure the client should retry after a pause: the service could not answer, the request was not wrong. */
export function isRetryable(failure: Failure): boolean {
  return failure.kind === 'database_unavailable' || failure.kind === 'conflict_lost';
}

// EPIPE: a query written to a pooled MySQL connection whose server side has gone ("This socket has been ended by
// the other party"), the first symptom of a database that went down under a live pool (docs/mcp.md).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
]);

/**
 * Server errors that say the node cannot serve now, whatever the statement:
 * - 1047 ER_UNKNOWN_COM_ERROR: a Galera node that is not (yet, or no longer) part of the primary component answers
 *   "WSREP has not yet prepared node for application use" to every statement while it joins or is cut off;
 * - 1180 ER_ERROR_DURING_COMMIT: a Galera node that lost the primary component (or could not replicate the write set)
 *   fails the commit ("Got error 6 during COMMIT", "Not connected to Primary Component"): nothing was committed;
 * - 1040 ER_CON_COUNT_ERROR: too many connections;
 * - 1053 ER_SERVER_SHUTDOWN: the server is shutting down;
 * - 1927 ER_CONNECTION_KILLED: the server killed the connection (a node leaving, an administrator's KILL);
 * - 1158–1161 ER_NET_READ_ERROR, ER_NET_READ_INTERRUPTED, ER_NET_ERROR_ON_WRITE, ER_NET_WRITE_INTERRUPTED;
 * - 2002, 2003, 2006, 2013: the client library's "can't connect", "server has gone away" and "lost connection".
 */
const UNAVAILABLE_ERRNOS = new Set([1047, 1180, 1040, 1053, 1927, 1158, 1159, 1160, 1161, 2002, 2003, 2006, 2013]);

/** Galera's words for a node that cannot serve now, whatever code the driver attaches. */
const GALERA_NOT_SERVING = /\bWSREP has not yet prepared node\b|\bnot connected to primary component\b|\bnon-primary (?:component|view)\b/i;

/** True when the store could not be reached or timed out, as opposed to a query that is wrong. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // knex's pool gave up waiting for a connection ("Knex: Timeout acquiring a connection").
  if (error.name === 'KnexTimeoutError') return true;
  const { code, errno, fatal } = error as Error & { code?: unknown; errno?: unknown; fatal?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  if (typeof errno === 'number' && UNAVAILABLE_ERRNOS.has(errno)) return true;
  // mysql2 marks an error that broke the connection itself as fatal (a lost or closed connection, a protocol error, a
  // refused handshake), including "Can't add new command when connection is in closed state", which carries no code.
  if (fatal === true) return true;
  return GALERA_NOT_SERVING.test(error.message);
}

/**
 * Errors that mean "another transaction won": the whole transaction is safe to run again from its first statement.
 * - ER_LOCK_DEADLOCK (1213): an InnoDB deadlock victim, and how a Galera node reports a certification failure or a
 *   brute-force abort by a replicated write set ("Deadlock: wsrep aborted transaction").
 * - ER_LOCK_WAIT_TIMEOUT (1205): a row lock held longer than innodb_lock_wait_timeout.
 * - ER_CHECKREAD (1020): "Record has changed since last read" under MariaDB's snapshot isolation.
 * - SQLITE_BUSY / SQLITE_BUSY_SNAPSHOT: another process holds the SQLite write lock past the busy timeout.
 */
const CONFLICT_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'ER_CHECKREAD', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']);
const CONFLICT_ERRNOS = new Set([1213, 1205, 1020]);

export function isTransactionConflict(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, errno } = error as Error & { code?: unknown; errno?: unknown };
  if (typeof code === 'string' && CONFLICT_CODES.has(code)) return true;
  if (typeof errno === 'number' && CONFLICT_ERRNOS.has(errno)) return true;
  // Galera names its aborts in the message whatever code the driver attaches.
  return /\bWSREP\b.*\b(conflict|aborted|certification)\b/i.test(error.message) || /wsrep aborted transaction/i.test(error.message);
}

/** Errors Koa or its middleware raise themselves (ctx.throw, a library with an HTTP status) carry one. */
function httpStatusOf(error: unknown): number | null {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : null;
}

function isZlibDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR');
}

/** The kind of anything thrown, and the failure as the interfaces word it. Never throws. */
export function classifyFailure(raw: unknown): Failure {
  if (raw instanceof TransactionConflictError) return { kind: 'conflict_lost', error: raw };
  if (raw instanceof ServiceUnavailableError) return { kind: 'database_unavailable', error: raw };
  if (raw instanceof AppError) return { kind: raw.status < 500 ? 'client' : 'internal', error: raw };
  // Unreachable is checked first: SQLITE_BUSY past the busy timeout is both, and says the store did not answer in time.
  if (isDatabaseUnavailable(raw)) return { kind: 'database_unavailable', error: new ServiceUnavailableError('the database is unreachable; retry shortly') };
  // A single statement outside withTransaction can lose a conflict too (a Galera brute-force abort): retryable, not a fault.
  if (isTransactionConflict(raw)) return { kind: 'conflict_lost', error: new ServiceUnavailableError('the change conflicted with a concurrent change; retry shortly') };
  const status = httpStatusOf(raw);
  if (status !== null && status < 500 && raw instanceof Error) {
    return { kind: 'client', error: new AppError(status, status === 413 ? 'request_too_large' : 'invalid_request', raw.message) };
  }
  // A request body whose Content-Encoding does not decompress (zlib's data and buffer errors) is the client's fault.
  if (isZlibDataError(raw)) {
    return { kind: 'client', error: new AppError(400, 'invalid_request', `the request body could not be decoded as its Content-Encoding says: ${(raw as Error).message}`) };
  }
  return { kind: 'internal', error: new AppError(500, 'server_error', 'the server failed to handle the request') };
}
