import { isScope, parseScopeString, type Scope } from '../../../clients/scopes.js';
import { InvalidScopeError, InvalidTargetError, UnauthorizedClientError } from '../../errors.js';
import { insertPair, newGrantId } from '../../tokens/store.js';
import { tokenResponse, type TokenResponse } from '../token-response.js';
import type { GrantContext } from './context.js';

/**
 * grant_type=client_credentials (RFC 6749 4.4): a service client of the site gets an access token for itself, bound
 * to the site's resource (RFC 8707), with no refresh token (4.4.3: SHOULD NOT) and no id_token (no one signs in).
 * The client has already authenticated with its registered method at the token endpoint.
 */
export async function clientCredentialsGrant(context: GrantContext): Promise<TokenResponse> {
  checkServiceClient(context);
  const scopes = requestedScopes(context);
  checkResource(context);
  const issued = await insertPair(context.services.db, {
    grantId: newGrantId(),
    siteId: context.site.id,
    clientRef: context.client.ref,
    userId: null,
    scopes,
    resource: context.site.origin,
    schoolId: null,
    authTime: null,
    dpopJkt: context.dpopJkt,
    withoutRefreshToken: true,
  });
  return tokenResponse(issued, { site: context.site, client: context.client, variant: context.services.variant });
}

/** RFC 6749 4.4 "MUST only be used by confidential clients": here, by service clients only (5.2 unauthorized_client). */
function checkServiceClient({ client }: GrantContext): void {
  if (client.kind === 'service') return;
  if (client.audience === 'member') {
    throw new UnauthorizedClientError(`${client.name} is a member application: it acts for a signed-in member and may not use client_credentials; use authorization_code`);
  }
  throw new UnauthorizedClientError(`${client.name} is not a service client: only service clients (created by an operator for client_credentials) may use this grant; use authorization_code`);
}

/** RFC 6749 3.3 / 4.4.2: `scope` is optional and defaults to every scope the client holds; more is invalid_scope. */
function requestedScopes({ client, form }: GrantContext): Scope[] {
  const raw = form.get('scope');
  if (raw === undefined) return [...client.scopes];
  const scopes: Scope[] = [];
  for (const scope of parseScopeString(raw)) {
    if (!isScope(scope)) throw new InvalidScopeError(`unknown scope ${scope}`);
    if (!client.scopes.includes(scope)) throw new InvalidScopeError(`${client.name} does not hold the scope ${scope}; it may ask for: ${client.scopes.join(' ')}`);
    if (!scopes.includes(scope)) scopes.push(scope);
  }
  if (scopes.length === 0) throw new InvalidScopeError('scope names no scope');
  return scopes;
}

/** RFC 8707 2: the only resource here is the site itself (its admin API). */
function checkResource({ site, form }: GrantContext): void {
  const resource = form.get('resource');
  if (resource !== undefined && resource !== site.origin) throw new InvalidTargetError(`resource must be ${site.origin} (this site's admin API) or left out`);
}
