import type { ParameterizedContext } from 'koa';
import { InvalidRequestError } from '../oauth/errors.js';

/**
 * The body of an OAuth endpoint: `application/x-www-form-urlencoded` only (spec: Endpoints), each parameter at most
 * once (RFC 6749 3.2: "Request and response parameters MUST NOT be included more than once"). Parameters with empty
 * values are treated as omitted (RFC 6749 3.1).
 */
export function readForm(ctx: ParameterizedContext): Map<string, string> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new InvalidRequestError('the request body must be application/x-www-form-urlencoded');
  }
  const raw = (ctx.request as { rawBody?: unknown }).rawBody;
  const params = new URLSearchParams(typeof raw === 'string' ? raw : '');
  const form = new Map<string, string>();
  for (const [name, value] of params) {
    if (form.has(name)) throw new InvalidRequestError(`the parameter ${name} is given more than once`);
    if (value !== '') form.set(name, value);
  }
  return form;
}

/** The same single-occurrence rule for a query string (the authorization request, RFC 6749 3.1). */
export function readQuery(search: string): Map<string, string> {
  const params = new URLSearchParams(search);
  const query = new Map<string, string>();
  for (const [name, value] of params) {
    if (query.has(name)) throw new InvalidRequestError(`the parameter ${name} is given more than once`);
    if (value !== '') query.set(name, value);
  }
  return query;
}

export function requireParam(params: Map<string, string>, name: string): string {
  const value = params.get(name);
  if (value === undefined) throw new InvalidRequestError(`the ${name} parameter is required`);
  return value;
}
