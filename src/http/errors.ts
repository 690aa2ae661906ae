import type { Middleware } from 'koa';
import { isDatabaseUnavailable } from '../db/connection.js';
import { isTransactionConflict } from '../db/transaction.js';
import { AppError, ServiceUnavailableError, ValidationError } from '../shared/errors.js';
import type { RequestState } from './state.js';

/** Errors Koa or its middleware raise themselves (body parser, ctx.throw) carry an HTTP status. */
function httpStatusOf(error: unknown): number | null {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : null;
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) return new ServiceUnavailableError('the database is unreachable; retry shortly');
  // A single statement outside withTransaction can lose a conflict too (a Galera brute-force abort): retryable, not a fault.
  if (isTransactionConflict(error)) return new ServiceUnavailableError('the change conflicted with a concurrent change; retry shortly');
  const status = httpStatusOf(error);
  if (status !== null && status < 500 && error instanceof Error) return new AppError(status, status === 413 ? 'request_too_large' : 'invalid_request', error.message);
  return new AppError(500, 'server_error', 'the server failed to handle the request');
}

/**
 * The one error middleware: every failure becomes an RFC 6749 style JSON body `{ error, error_description }`
 * (plus the failing JSON pointers for invalid input). Interfaces with another error format (GraphQL, admin
 * problem+json) render their own errors before they reach here.
 */
export function errorHandling(): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && (ctx.body === undefined || ctx.body === null)) {
        throw new AppError(404, 'not_found', `no resource at ${ctx.method} ${ctx.path}`);
      }
      // @koa/router's allowedMethods() answers 405/501 with only a status; give it the JSON body every error has.
      if ((ctx.status === 405 || ctx.status === 501) && (ctx.body === undefined || ctx.body === null)) {
        throw new AppError(ctx.status, ctx.status === 405 ? 'method_not_allowed' : 'not_implemented', `${ctx.method} is not allowed on ${ctx.path}${ctx.response.get('Allow') ? `; allowed: ${ctx.response.get('Allow')}` : ''}`);
      }
    } catch (raw) {
      const error = toAppError(raw);
      if (error.status >= 500) ctx.state.log.error({ err: raw }, 'request failed');
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        error: error.code,
        error_description: error.message,
        ...(error instanceof ValidationError && error.problems.length > 0 ? { problems: error.problems } : {}),
      };
    }
  };
}
