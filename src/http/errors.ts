import type { Middleware, ParameterizedContext } from 'koa';
import { AppError, SiteNotFoundError, ValidationError } from '../shared/errors.js';
import { classifyFailure, type Failure } from '../shared/failure.js';
import { logFailure } from '../shared/failure-log.js';
import { browserErrorPage } from './browser-error-page.js';
import { unknownOriginPage } from './unknown-origin-page.js';
import type { RequestState, SiteState } from './state.js';

/** Anything thrown, as the interfaces word it (src/shared/failure.ts). */
export function toAppError(error: unknown): AppError {
  return classifyFailure(error).error;
}

/** How one interface answers a failure; the error middleware has already logged a fault of ours. */
export type ErrorRenderer = (ctx: ParameterizedContext<RequestState>, failure: Failure) => void;

/** Where clients read JSON errors whatever they accept (the APIs, discovery, the agent guide, the probes). */
export interface MachinePaths {
  /** Whole namespaces, each ending in `/`, e.g. `/api/`. */
  prefixes: readonly string[];
  /** Single paths, e.g. `/mcp`. */
  paths: readonly string[];
}

/** A browser navigating to a page: GET or HEAD, HTML preferred over JSON (a client accepting anything keeps JSON), not a machine path. */
function wantsPage(ctx: ParameterizedContext<RequestState>, machine: MachinePaths): boolean {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  if (machine.paths.includes(ctx.path) || machine.prefixes.some((prefix) => ctx.path.startsWith(prefix))) return false;
  return ctx.accepts('json', 'html') === 'html';
}

/**
 * The OAuth interfaces' format, and the fallback of every path that declares none: an RFC 6749 style JSON body
 * `{ error, error_description }` (plus the failing JSON pointers for invalid input), or, for a browser navigating to
 * a page outside the machine paths the application declares, a small HTML page with the request id. A database that
 * cannot answer, or a conflict lost, is 503 `temporarily_unavailable` with `Retry-After` on every interface.
 */
export const jsonOrPageErrors = (machine: MachinePaths): ErrorRenderer => (ctx, { error }) => {
  ctx.status = error.status;
  ctx.set(error.headers);
  ctx.set('Cache-Control', 'no-store');
  if (wantsPage(ctx, machine)) {
    const site = (ctx.state as Partial<SiteState>).site;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body =
      error instanceof SiteNotFoundError
        ? unknownOriginPage({ origin: error.origin, onlySite: error.onlySite, requestId: ctx.state.requestId })
        : browserErrorPage({ status: error.status, request: `${ctx.method} ${ctx.path}`, siteName: site?.name ?? null, requestId: ctx.state.requestId, detail: error.message });
    return;
  }
  ctx.body = {
    error: error.code,
    error_description: error.message,
    ...(error instanceof ValidationError && error.problems.length > 0 ? { problems: error.problems } : {}),
  };
};

/**
 * The one error middleware: every failure is classified once (src/shared/failure.ts), a fault of ours is logged, and
 * `render` answers it. Interfaces with another error format (GraphQL, MCP, admin problem+json) render their own
 * errors with the same classifier before they reach here.
 */
export function errorHandling(render: ErrorRenderer): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && (ctx.body === undefined || ctx.body === null)) {
        throw new AppError(404, 'not_found', `no resource at ${ctx.method} ${ctx.path}`);
      }
      // @koa/router's allowedMethods() answers 405, or 501 for a method no route of it uses (PROPFIND, TRACE, …), with
      // only a status and Allow. Either way the resource exists and the method is not one of its own: a client error,
      // 405 with the Allow header the router set (RFC 9110 15.5.6), and the JSON body every error has.
      if ((ctx.status === 405 || ctx.status === 501) && (ctx.body === undefined || ctx.body === null)) {
        throw new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}${ctx.response.get('Allow') ? `; allowed: ${ctx.response.get('Allow')}` : ''}`);
      }
    } catch (raw) {
      const failure = classifyFailure(raw);
      ctx.state.errorCode = failure.error.code;
      if (failure.error.status >= 500) logFailure(ctx.state.log, raw, 'request failed');
      render(ctx, failure);
    }
  };
}
