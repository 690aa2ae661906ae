import { declaredBody } from '../../http/body.js';
import type { SiteContext } from '../../http/state.js';
import { readForm } from '../parameters.js';
import { InvalidClientMetadataError, InvalidRequestError } from '../errors.js';

/** What the registration endpoint reads from a request: only `client_name` decides anything (spec, Endpoints). */
export interface RegistrationRequest {
  clientName: string | undefined;
}

function readJsonBody(ctx: SiteContext): Record<string, unknown> {
  const declared = declaredBody(ctx);
  const body = declared.kind === 'json' ? declared.value : undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidRequestError('the registration request must be a JSON object of client metadata (RFC 7591 2)');
  }
  return body as Record<string, unknown>;
}

function readClientName(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InvalidClientMetadataError('client_name must be a string (RFC 7591 2)');
  return value;
}

/**
 * RFC 7591 3.1: the request is a JSON object; the form encoding of every other OAuth endpoint (spec, Endpoints) is
 * accepted as well. Other metadata fields are ignored: the answer is the matched platform's registration as the
 * operator made it (RFC 7591 3.2.1 lets the server replace requested values).
 */
export function readRegistrationRequest(ctx: SiteContext): RegistrationRequest {
  if (ctx.is('application/json')) return { clientName: readClientName(readJsonBody(ctx).client_name) };
  if (ctx.is('application/x-www-form-urlencoded')) return { clientName: readForm(ctx).get('client_name') };
  throw new InvalidRequestError('send the registration request as application/json (RFC 7591 3.1) or application/x-www-form-urlencoded');
}
