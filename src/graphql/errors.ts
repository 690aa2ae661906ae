import type { ParameterizedContext } from 'koa';
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Response as HttpResponse } from 'graphql-http';
import type { ErrorRenderer } from '../http/errors.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { classifyFailure, isRetryable, type Failure } from '../shared/failure.js';
import { withLocationsOf } from './compiled.js';

/**
 * The member API's error format (docs/member-graphql.md, "Errors inside GraphQL"), from the one failure classifier
 * (src/shared/failure.ts):
 * - a failure of a field is a GraphQL `errors` entry with an `extensions.code`, HTTP 200;
 * - a database that cannot answer, or a transaction that kept losing conflicts, anywhere in the operation is the
 *   whole answer: HTTP 503 `temporarily_unavailable` with `Retry-After`, as on every other interface, so a client
 *   retries the operation instead of reading a half answer as final;
 * - a failure outside execution (authentication's verdict) is the OAuth JSON error and a GraphQL `errors` entry, so
 *   either kind of client reads it.
 */

/** The HTTP-level answer: `{ error, error_description }` for OAuth clients and `errors` for GraphQL ones. */
export function httpErrorBody(code: string, message: string): { error: string; error_description: string; errors: Array<{ message: string; extensions: { code: string } }> } {
  return { error: code, error_description: message, errors: [{ message, extensions: { code } }] };
}

/** A failure that escaped the endpoint, rendered where the endpoint is mounted (src/app.ts). */
export const graphqlHttpErrors: ErrorRenderer = (ctx: ParameterizedContext, { error }: Failure) => {
  ctx.status = error.status;
  ctx.set(error.headers);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = httpErrorBody(error.code, error.message);
};

/** The field's failure as an `errors` entry: the domain's code, or a masked INTERNAL_SERVER_ERROR (logged by the caller). */
export function formatError(error: Readonly<GraphQLError | Error>): GraphQLError | Error {
  if (!(error instanceof GraphQLError) || !error.originalError || error.originalError instanceof GraphQLError) return error;
  const original = error.originalError;
  const { kind, error: failure } = classifyFailure(original);
  const code =
    original instanceof ValidationError ? 'BAD_USER_INPUT' : original instanceof NotFoundError ? 'NOT_FOUND' : kind === 'internal' && failure !== original ? 'INTERNAL_SERVER_ERROR' : failure.code.toUpperCase();
  const message = code === 'INTERNAL_SERVER_ERROR' ? 'internal error' : failure.message;
  const extensions = { code, ...(original instanceof ValidationError && original.problems.length > 0 ? { problems: original.problems } : {}) };
  return withLocationsOf(error, new GraphQLError(message, { nodes: error.nodes, path: error.path, extensions }));
}

/** 503 when a field failed because the store could not answer; undefined when the result stands as it is. */
export function unavailableResponse(result: ExecutionResult): HttpResponse | undefined {
  for (const error of result.errors ?? []) {
    if (error.originalError === undefined) continue;
    const failure = classifyFailure(error.originalError);
    if (!isRetryable(failure)) continue;
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    for (const [name, value] of Object.entries(failure.error.headers)) headers[name.toLowerCase()] = value;
    return [JSON.stringify(httpErrorBody(failure.error.code, failure.error.message)), { status: 503, statusText: 'Service Unavailable', headers }];
  }
  return undefined;
}
