import type { Scope } from '../clients/scopes.js';
import type { McpCaller } from './session.js';

/**
 * What a caller may do with an operation (a tool, a resource, a prompt) that needs `scopes`:
 *
 * - `granted`: a public operation, or a member token holding every scope it needs;
 * - `sign-in`: no token at all: HTTP 401 with the challenge that starts OAuth (RFC 6750 3.1, RFC 9728 5.1);
 * - `step-up`: a member token that lacks some of the scopes: HTTP 403 `insufficient_scope` naming every scope the
 *   operation needs (RFC 6750 3.1; the MCP authorization spec's scope challenge), so the client asks the member to
 *   consent again with those scopes;
 * - `refused`: a token that can never hold the scopes (an operator token: `account:*` scopes are member-only; a client
 *   token with no member): asking again would not help, so the operation itself answers the error.
 */
export type Access = 'granted' | 'sign-in' | 'step-up' | 'refused';

export function accessTo(caller: McpCaller, scopes: readonly Scope[]): Access {
  if (scopes.length === 0) return 'granted';
  if (caller.authInfo === null) return 'sign-in';
  if (!actsForMember(caller)) return 'refused';
  return scopes.every((scope) => caller.scopes.includes(scope)) ? 'granted' : 'step-up';
}

/** A member-audience token bound to a member: the only caller member operations are for. */
export function actsForMember(caller: McpCaller): boolean {
  return caller.userId !== null && caller.audience === 'member';
}

/**
 * Whether a list shows an operation to the caller. Anonymous and operator callers see the public ones; a member token
 * sees every member operation too, also those its scopes do not cover yet: calling one is what starts the step-up.
 */
export function isListedFor(caller: McpCaller, scopes: readonly Scope[]): boolean {
  return scopes.length === 0 || actsForMember(caller);
}

/** Why an operation is refused, in words an agent can act on. */
export function refusalReason(caller: McpCaller, scopes: readonly Scope[]): string {
  if (caller.authInfo === null) return 'no access token was presented';
  if (caller.userId === null) return 'the access token is not bound to a member';
  if (caller.audience !== 'member') return `an operator token cannot hold member scopes (${scopes.join(' ')}); use a member client`;
  return `the access token does not hold ${scopes.filter((scope) => !caller.scopes.includes(scope)).join(' ')}`;
}
