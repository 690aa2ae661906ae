import type { Middleware } from 'koa';
import { isMysql, type Database } from '../db/connection.js';
import { databaseHealth, GALERA_ON_STATEMENT, GALERA_READY_STATEMENT, MYSQL_PROBE_STATEMENT, probeFailure, showsOn } from '../db/pool-guard.js';
import type { Logger } from '../shared/logger.js';
import type { RequestState } from './state.js';

/** Generous: a loaded machine may take a second to answer, and a slow answer is not an outage. */
const CHECK_TIMEOUT_MS = 3000;

/** `select 1` on SQLite; on MySQL a table read and whether a Galera node serves (src/db/pool-guard.ts). */
async function askDatabase(db: Database): Promise<void> {
  if (!isMysql(db)) {
    await db.raw('select 1');
    return;
  }
  const failure = await db.raw(MYSQL_PROBE_STATEMENT).then(
    () => null,
    (error: Error & { errno?: number }) => probeFailure(error),
  );
  if (failure) throw failure;
  const [variables] = (await db.raw(GALERA_ON_STATEMENT)) as [unknown, unknown];
  if (!showsOn(variables)) return;
  const [status] = (await db.raw(GALERA_READY_STATEMENT)) as [unknown, unknown];
  if (!showsOn(status)) throw new Error('the Galera node is not ready');
}

/** What the probes say about the database: whether it answered and how fast, never its address or the driver's text. */
type DatabaseCheck = { status: 'ok' | 'unavailable'; latencyMs: number };

/** Whether the database answers (and, on Galera, the node serves) within 3 s (at once "unavailable" while it is known down, src/db/health.ts). */
async function checkDatabase(db: Database): Promise<DatabaseCheck> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      askDatabase(db),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: 'ok', latencyMs: Date.now() - started };
  } catch {
    // The reason is logged once, when the process's view of the database changes (watchDatabaseHealth).
    return { status: 'unavailable', latencyMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Logs each change of the database's health state once, at warn and without a stack: the driver's message when it
 * stops answering (it may name the database's address, so it goes to the log, never into an answer), how long it
 * was away and how many requests were shed when it answers again. Returns the way to stop.
 */
export function watchDatabaseHealth(db: Database, logger: Logger): () => void {
  const health = databaseHealth(db);
  if (health === null) return () => undefined;
  return health.onChange((change) => {
    if (change.state === 'unhealthy') logger.warn({ database: 'unavailable', cause: change.cause }, 'the database does not answer: requests that need it answer 503 until it does');
    else logger.warn({ database: 'ok', unavailableMs: change.unavailableMs, shed: change.shed }, 'the database answers again');
  });
}

/** Where the process is in its life: serving only once started, and no longer once it drains for a shutdown. */
export class Lifecycle {
  state: 'starting' | 'ready' | 'draining' = 'starting';
}

/** GET /healthz: 200 when the database answers within 3 s, 503 otherwise. Served for any Host, for load balancers. */
export function healthCheck(db: Database): Middleware<RequestState> {
  return async (ctx) => {
    const database = await checkDatabase(db);
    ctx.status = database.status === 'ok' ? 200 : 503;
    ctx.body = { status: database.status === 'ok' ? 'ok' : 'unavailable', database };
    ctx.set('Cache-Control', 'no-store');
  };
}

/**
 * GET /readyz: whether a load balancer should send this instance traffic. 503 while it starts, once it drains for a
 * shutdown (SIGTERM), and while the database does not answer; 200 otherwise. /healthz stays the liveness probe.
 */
export function readinessCheck(db: Database, lifecycle: Lifecycle): Middleware<RequestState> {
  return async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    if (lifecycle.state !== 'ready') {
      ctx.status = 503;
      ctx.body = { status: lifecycle.state };
      return;
    }
    const database = await checkDatabase(db);
    ctx.status = database.status === 'ok' ? 200 : 503;
    ctx.body = { status: database.status === 'ok' ? 'ready' : 'unavailable', database };
  };
}
