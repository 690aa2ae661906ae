import type { Middleware, ParameterizedContext } from 'koa';
import { isDatabaseUnavailable } from '../db/connection.js';
import { isTransactionConflict } from '../db/transaction.js';
import { AppError, ServiceUnavailableError, ValidationError } from '../shared/errors.js';
import { browserErrorPage } from '../pages/browser-error-page.js';
import type { RequestState, SiteState } from './state.js';

/** Errors Koa or its middleware raise themselves (body parser, ctx.throw) carry an HTTP status. */
function httpStatusOf(error: unknown): number | null {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : null;
}

function isZlibDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR');
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) return new ServiceUnavailableError('the database is unreachable; retry shortly');
  // A single statement outside withTransaction can lose a conflict too (a Galera brute-force abort): retryable, not a fault.
  if (isTransactionConflict(error)) return new ServiceUnavailableError('the change conflicted with a concurrent change; retry shortly');
  const status = httpStatusOf(error);
  if (status !== null && status < 500 && error instanceof Error) return new AppError(status, status === 413 ? 'request_too_large' : 'invalid_request', error.message);
  // A request body whose Content-Encoding does not decompress (zlib's data and buffer errors) is the client's fault.
  if (isZlibDataError(error)) return new AppError(400, 'invalid_request', `the request body could not be decoded as its Content-Encoding says: ${(error as Error).message}`);
  return new AppError(500, 'server_error', 'the server failed to handle the request');
}

/** Paths whose clients read JSON whatever they accept: the APIs, discovery, the agent guide, the probes. */
const MACHINE_PATHS = /^\/(api\/|\.well-known\/|mcp$|member\/graphql$|account\/graphql$|openapi\.json$|auth\.md$|healthz$|readyz$)/;

/** A browser navigating to a page: GET or HEAD, HTML preferred over JSON (a client accepting anything keeps JSON), not an API path. */
function wantsPage(ctx: ParameterizedContext<RequestState>): boolean {
  return (ctx.method === 'GET' || ctx.method === 'HEAD') && !MACHINE_PATHS.test(ctx.path) && ctx.accepts('json', 'html') === 'html';
}

/**
 * The one error middleware: every failure becomes an RFC 6749 style JSON body `{ error, error_description }`
 * (plus the failing JSON pointers for invalid input), or, for a browser navigating to a page, a small HTML page with
 * the request id. Interfaces with another error format (GraphQL, admin
 * problem+json) render their own errors before they reach here.
 */
export function errorHandling(): Middleware<RequestState> {
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
      const error = toAppError(raw);
      if (error.status >= 500) ctx.state.log.error({ err: raw }, 'request failed');
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.set('Cache-Control', 'no-store');
      if (wantsPage(ctx)) {
        const site = (ctx.state as Partial<SiteState>).site;
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = browserErrorPage({ status: error.status, request: `${ctx.method} ${ctx.path}`, siteName: site?.name ?? null, requestId: ctx.state.requestId, detail: error.message });
        return;
      }
      ctx.body = {
        error: error.code,
        error_description: error.message,
        ...(error instanceof ValidationError && error.problems.length > 0 ? { problems: error.problems } : {}),
      };
    }
  };
}
