import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { maskedFields, type Logger } from '../shared/logger.js';
import { activeTraceIds, routeActiveSpan } from '../shared/tracing.js';
import type { RequestState, SiteState } from './state.js';

const ACCEPTABLE_ID = /^[\w.:-]{1,128}$/;

/** How much of a User-Agent header the access line keeps: enough to name the client and its version. */
export const USER_AGENT_LOGGED_LENGTH = 200;

/**
 * The request's state with its child logger made on first use. Most requests log only their access line, which names
 * the request id and the site itself; a child per request (its bindings serialized, then again with the site) would
 * be made for nothing.
 */
class RequestLogState implements RequestState {
  #log: Logger | undefined;
  #siteId: number | undefined;
  readonly #root: Logger;

  constructor(
    public requestId: string,
    root: Logger,
  ) {
    this.#root = root;
  }

  get log(): Logger {
    this.#log ??= this.#root.child(this.#siteId === undefined ? { requestId: this.requestId } : { requestId: this.requestId, siteId: this.#siteId });
    return this.#log;
  }

  set log(log: Logger) {
    this.#log = log;
  }

  bindSite(siteId: number): void {
    if (this.#log) this.#log.setBindings({ siteId });
    else this.#siteId = siteId;
  }
}

/** The request's lines from now on name its site (`siteId`), as its access line does. */
export function bindSiteToRequestLog(state: RequestState, siteId: number): void {
  if (state instanceof RequestLogState) state.bindSite(siteId);
  else state.log.setBindings({ siteId });
}

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
    // Koa's state is a fresh object per request that nothing before this middleware has written to.
    ctx.state = new RequestLogState(requestId, logger);
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
      // The request's bindings first, as a child logger writes them; every field a scalar, masked as it is built.
      logger.info(
        maskedFields({
          requestId,
          siteId: (ctx.state as Partial<SiteState>).site?.id,
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
        }),
        'request',
      );
    }
  };
}
