import type { OAuthClient, TokenEndpointAuthMethod } from '../clients/clients.js';
import type { Database } from '../db/connection.js';
import type { Site } from '../sites/sites.js';
import { resolveClient, type ResolvedClient } from './client-resolution.js';
import { InvalidClientError, UnauthorizedClientError } from './errors.js';
import { basicChallenge } from './client-authentication/basic.js';
import { verifySecret } from './client-authentication/client-secret.js';
import type { ClientAuthEndpoint } from './client-authentication/endpoint.js';
import { readPresentedCredentials, type PresentedCredentials } from './client-authentication/presented.js';
import { verifyClientAssertion } from './client-authentication/private-key-jwt.js';

export type { ClientAuthEndpoint } from './client-authentication/endpoint.js';
export { JWT_BEARER_ASSERTION_TYPE } from './client-authentication/presented.js';

/** How each method is sent, for descriptions that tell a client what to do. */
const HOW: Record<TokenEndpointAuthMethod, string> = {
  none: 'client_id only, in the body',
  client_secret_post: 'client_id and client_secret in the body',
  client_secret_basic: 'an Authorization: Basic header with the form-encoded client_id and client_secret',
  private_key_jwt: 'client_assertion_type and a client_assertion signed with one of its registered keys',
};

/**
 * The one method the client may use. A public client always uses `none` (spec: OAuth client); a confidential row
 * whose method column says `none` (written before the column mattered) uses client_secret_post, as it always has.
 */
export function registeredMethod(client: OAuthClient): TokenEndpointAuthMethod {
  if (!client.confidential) return 'none';
  return client.tokenEndpointAuthMethod === 'none' ? 'client_secret_post' : client.tokenEndpointAuthMethod;
}

const registeredFor = (method: TokenEndpointAuthMethod) => `it is registered for ${method} (${HOW[method]})`;

/** RFC 6749 2.3: exactly the registered method, and only one; `none` from a confidential client is refused. */
function checkMethod(client: OAuthClient, presented: PresentedCredentials, endpoint: ClientAuthEndpoint): void {
  const method = registeredMethod(client);
  if (presented.methods.length > 1) {
    // RFC 6749 2.3: "The client MUST NOT use more than one authentication method in each request."
    throw new InvalidClientError(`the request uses more than one client authentication method (${presented.methods.join(' and ')}); send only one: ${registeredFor(method)}`);
  }
  const [used] = presented.methods;
  if (used === method) return;
  if (method === 'none') throw new InvalidClientError(`${client.clientId} is a public client: it has no secret or keys; authenticate with client_id only (none), not ${used}`);
  if (used === 'none') {
    // Spec, Authentication 14 and Errors: a confidential client revoking without credentials gets 403 unauthorized_client.
    if (endpoint === 'revocation') throw new UnauthorizedClientError(`a confidential client must authenticate to revoke tokens: ${registeredFor(method)}`, 403);
    throw new InvalidClientError(`${client.clientId} is a confidential client and must authenticate: ${registeredFor(method)}`);
  }
  throw new InvalidClientError(`${client.clientId} used ${used}, but ${registeredFor(method)}`);
}

async function authenticate(
  db: Database,
  site: Site,
  presented: PresentedCredentials,
  endpoint: ClientAuthEndpoint,
  known: ResolvedClient | undefined,
): Promise<ResolvedClient> {
  const { clientId } = presented;
  const usable = known !== undefined && known.client.clientId === clientId && known.client.siteId === site.id && known.client.kind !== 'metadata_document';
  const resolved = usable ? known : await resolveClient(db, site, clientId);
  if (!resolved) throw new InvalidClientError(`unknown client ${clientId} at ${site.origin}`);
  checkMethod(resolved.client, presented, endpoint);
  if (presented.assertion !== undefined) await verifyClientAssertion(db, site, resolved.client, presented.assertion, endpoint);
  else if (presented.secret !== undefined) await verifySecret(db, resolved, presented.secret);
  return resolved;
}

/**
 * Client authentication at the token, revocation and introspection endpoints (RFC 6749 2.3, spec: OAuth client;
 * Authentication 2): read what the request presents → resolve the client → check it is the one registered method →
 * verify it (`none`, client_secret_basic, client_secret_post or private_key_jwt). `known` is a client row the caller
 * already read (the refresh grant reads it with the token); it is used only when it is the registered client the
 * request names. A 401 to a client that tried HTTP Basic carries the Basic challenge (RFC 6749 5.2).
 */
export async function authenticateClient(
  db: Database,
  site: Site,
  form: Map<string, string>,
  authorizationHeader: string | undefined,
  endpoint: ClientAuthEndpoint,
  known?: ResolvedClient,
): Promise<ResolvedClient> {
  let presented: PresentedCredentials | undefined;
  try {
    presented = readPresentedCredentials(form, authorizationHeader);
    return await authenticate(db, site, presented, endpoint, known);
  } catch (error) {
    const triedBasic = presented?.triedBasic ?? /^\s*basic(?:\s|$)/i.test(authorizationHeader ?? '');
    if (triedBasic && error instanceof InvalidClientError) throw new InvalidClientError(error.message, basicChallenge(site.origin));
    throw error;
  }
}
