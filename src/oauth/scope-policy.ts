import type { OAuthClient } from '../clients/clients.js';
import { isReadOrIdentityScope, isScope, MEMBER_ONLY_SCOPES, parseScopeString, type Scope } from '../clients/scopes.js';
import { InvalidScopeError } from './errors.js';

/** Scopes a client may be granted now: its registered set, narrowed to read and identity scopes while an unreviewed metadata-document client (Authentication 5). */
export function grantableScopes(client: OAuthClient): Scope[] {
  return client.kind === 'metadata_document' && !client.reviewed ? client.scopes.filter(isReadOrIdentityScope) : client.scopes;
}

/**
 * The scopes to grant for a `scope` parameter: every requested scope must be known and grantable to this client;
 * `account:*` for an operator client is invalid_scope (Authentication 6). No `scope` means the client's grantable set.
 */
export function resolveRequestedScopes(client: OAuthClient, requested: string | undefined): Scope[] {
  const allowed = grantableScopes(client);
  if (requested === undefined) {
    if (allowed.length === 0) throw new InvalidScopeError('the client has no scope it may be granted');
    return allowed;
  }
  const names = [...new Set(parseScopeString(requested))];
  if (names.length === 0) throw new InvalidScopeError('the scope parameter is empty');
  for (const name of names) {
    if (!isScope(name)) throw new InvalidScopeError(`unknown scope "${name}"`);
    if (client.audience === 'operator' && MEMBER_ONLY_SCOPES.includes(name)) {
      throw new InvalidScopeError(`"${name}" is reserved to member clients; operator clients use the admin scopes`);
    }
    if (!allowed.includes(name)) {
      throw new InvalidScopeError(
        client.scopes.includes(name)
          ? `"${name}" cannot be granted until the operator reviews this client; only read and identity scopes are available`
          : `"${name}" is not among the scopes the operator allowed for this client`,
      );
    }
  }
  return names.filter(isScope);
}

/** A refresh may narrow the original grant but never widen it (RFC 6749 6). */
export function narrowScopes(granted: readonly Scope[], requested: string | undefined): Scope[] {
  if (requested === undefined) return [...granted];
  const names = [...new Set(parseScopeString(requested))];
  const outside = names.find((name) => !granted.includes(name as Scope));
  if (outside !== undefined) throw new InvalidScopeError(`"${outside}" was not granted originally`);
  if (names.length === 0) throw new InvalidScopeError('the scope parameter is empty');
  return names.filter(isScope);
}
