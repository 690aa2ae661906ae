import type { ParameterizedContext } from 'koa';
import { declaredBody, FORM_MEDIA_TYPE, parseSingleValuedForm } from '../http/body.js';
import { InvalidRequestError } from './errors.js';

/**
 * The parameters of an OAuth request, each at most once (RFC 6749 3.1 and 3.2: "Request and response parameters MUST
 * NOT be included more than once"); parameters with empty values are treated as omitted (RFC 6749 3.1).
 */
function singleValued(text: string): Map<string, string> {
  const outcome = parseSingleValuedForm(text);
  if (outcome.kind === 'repeated') throw new InvalidRequestError(`the parameter ${outcome.name} is given more than once`);
  return outcome.params;
}

/** The body of an OAuth endpoint: `application/x-www-form-urlencoded` only, read by the route's acceptBody. */
export function readForm(ctx: ParameterizedContext): Map<string, string> {
  if (!ctx.is(FORM_MEDIA_TYPE)) throw new InvalidRequestError('the request body must be application/x-www-form-urlencoded');
  const body = declaredBody(ctx);
  return singleValued(body.kind === 'form' ? body.text : '');
}

/** The same rule for a query string (the authorization request, RFC 6749 3.1). */
export function readQuery(search: string): Map<string, string> {
  return singleValued(search);
}

export function requireParam(params: Map<string, string>, name: string): string {
  const value = params.get(name);
  if (value === undefined) throw new InvalidRequestError(`the ${name} parameter is required`);
  return value;
}
