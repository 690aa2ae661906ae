import type { Middleware } from 'koa';
import type { Database } from '../db/connection.js';
import type { RequestState } from './state.js';

const CHECK_TIMEOUT_MS = 2000;

/** GET /healthz: 200 when the database answers within two seconds, 503 otherwise. Served for any Host, for load balancers. */
export function healthCheck(db: Database): Middleware<RequestState> {
  return async (ctx) => {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        db.raw('select 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
        }),
      ]);
      ctx.status = 200;
      ctx.body = { status: 'ok', database: { status: 'ok', latencyMs: Date.now() - started } };
    } catch (error) {
      ctx.state.log.warn({ err: error }, 'health check failed');
      ctx.status = 503;
      ctx.body = { status: 'unavailable', database: { status: 'unreachable', error: error instanceof Error ? error.message : String(error) } };
    } finally {
      clearTimeout(timer);
      ctx.set('Cache-Control', 'no-store');
    }
  };
}
