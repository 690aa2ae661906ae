import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../shared/logger.js';
import { activeTraceIds, routeActiveSpan } from '../shared/tracing.js';
import type { RequestState } from './state.js';

const ACCEPTABLE_ID = /^[\w.:-]{1,128}$/;

/** How much of a User-Agent header the access line keeps: enough to name the client and its version. */
export const USER_AGENT_LOGGED_LENGTH = 200;

/**
 * Gives every request an id (a caller's X-Request-Id when it is sane) and one access-log line when it ends: method,
 * path, status, time, origin, the client's address (`ctx.ip`: the proxy's X-Forwarded-For hop only with TRUST_PROXY),
 * its User-Agent (cut to USER_AGENT_LOGGED_LENGTH), the `clientId` the request identified and the `errorCode` of an
 * error answer, the last two where they apply (docs/operations.md, "Logs").
 */
export function requestLogging(logger: Logger): Middleware<RequestState> {
  return async (ctx, next) => {
    const offered = ctx.get('x-request-id');
    const requestId = ACCEPTABLE_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    // The request's HTTP server span while tracing is on (docs/operations.md, "Tracing"); undefined, and not logged, when off.
    const traceIds = activeTraceIds();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      routeActiveSpan(ctx.method, (ctx as { _matchedRoute?: unknown })._matchedRoute ?? ctx.state.routeTemplate);
      const { clientId, errorCode } = ctx.state;
      const userAgent = ctx.get('user-agent');
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(ms * 10) / 10,
          origin: `${ctx.protocol}://${ctx.host}`,
          ip: ctx.ip,
          userAgent: userAgent.length > USER_AGENT_LOGGED_LENGTH ? userAgent.slice(0, USER_AGENT_LOGGED_LENGTH) : userAgent || undefined,
          clientId,
          errorCode: ctx.status >= 400 ? errorCode : undefined,
          traceId: traceIds?.traceId,
          spanId: traceIds?.spanId,
        },
        'request',
      );
    }
  };
}
