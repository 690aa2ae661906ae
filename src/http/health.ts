import type { Middleware } from 'koa';
import type { Database } from '../db/connection.js';
import type { RequestState } from './state.js';

const CHECK_TIMEOUT_MS = 2000;

type DatabaseCheck = { status: 'ok'; latencyMs: number } | { status: 'unreachable'; error: string };

/** Whether the database answers `select 1` within two seconds. */
async function checkDatabase(db: Database): Promise<DatabaseCheck> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      db.raw('select 1'),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: 'ok', latencyMs: Date.now() - started };
  } catch (error) {
    return { status: 'unreachable', error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** Where the process is in its life: serving only once started, and no longer once it drains for a shutdown. */
export class Lifecycle {
  state: 'starting' | 'ready' | 'draining' = 'starting';
}

/** GET /healthz: 200 when the database answers within two seconds, 503 otherwise. Served for any Host, for load balancers. */
export function healthCheck(db: Database): Middleware<RequestState> {
  return async (ctx) => {
    const database = await checkDatabase(db);
    if (database.status !== 'ok') ctx.state.log.warn({ err: database.error }, 'health check failed');
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
