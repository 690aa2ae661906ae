import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../shared/logger.js';
import type { RequestState } from './state.js';

const ACCEPTABLE_ID = /^[\w.:-]{1,128}$/;

/** Gives every request an id (a caller's X-Request-Id when it is sane) and one access-log line when it ends. */
export function requestLogging(logger: Logger): Middleware<RequestState> {
  return async (ctx, next) => {
    const offered = ctx.get('x-request-id');
    const requestId = ACCEPTABLE_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10, origin: `${ctx.protocol}://${ctx.host}` }, 'request');
    }
  };
}
