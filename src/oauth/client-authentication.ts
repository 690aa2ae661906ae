import { verifyClientSecret } from '../clients/client-secrets.js';
import type { Database } from '../db/connection.js';
import type { Site } from '../sites/sites.js';
import { resolveClient, type ResolvedClient } from './client-resolution.js';
import { InvalidClientError, InvalidRequestError, UnauthorizedClientError } from './errors.js';

export type ClientAuthEndpoint = 'token' | 'revocation' | 'introspection';

/**
 * Client authentication at the token, revocation and introspection endpoints (spec: OAuth client; Authentication 2):
 * public clients use `none` (client_id only); confidential clients use `client_secret_post`, and presenting `none`
 * for one is refused. HTTP Basic (client_secret_basic) is not offered. `known` is a client row the caller already read
 * (the refresh grant reads it with the token); it is used only when it is the registered client the form names here.
 */
export async function authenticateClient(
  db: Database,
  site: Site,
  form: Map<string, string>,
  authorizationHeader: string | undefined,
  endpoint: ClientAuthEndpoint,
  known?: ResolvedClient,
): Promise<ResolvedClient> {
  if (authorizationHeader !== undefined && /^basic /i.test(authorizationHeader)) {
    throw new InvalidClientError('client_secret_basic is not supported; send client_id and client_secret in the form body (client_secret_post)');
  }
  const clientId = form.get('client_id');
  if (clientId === undefined) throw new InvalidRequestError('the client_id parameter is required');
  const usable = known !== undefined && known.client.clientId === clientId && known.client.siteId === site.id && known.client.kind !== 'metadata_document';
  const resolved = usable ? known : await resolveClient(db, site, clientId);
  if (!resolved) throw new InvalidClientError(`unknown client ${clientId} at ${site.origin}`);

  const secret = form.get('client_secret');
  if (!resolved.client.confidential) {
    if (secret !== undefined) throw new InvalidClientError('this is a public client: it has no secret; authenticate with client_id only (none)');
    return resolved;
  }
  if (secret === undefined) {
    // Spec, Authentication 14 and Errors: a confidential client revoking without client_secret gets 403 unauthorized_client.
    if (endpoint === 'revocation') throw new UnauthorizedClientError('a confidential client must send its client_secret to revoke tokens', 403);
    throw new InvalidClientError('this is a confidential client: authenticate with client_secret_post (client_id and client_secret in the body)');
  }
  // Constant-time against the stored scrypt (or legacy SHA-256) hash; a legacy hash is upgraded on success.
  if (resolved.secretHash === null || !(await verifyClientSecret(db, resolved.client.ref, secret, resolved.secretHash))) {
    throw new InvalidClientError('client authentication failed');
  }
  return resolved;
}
