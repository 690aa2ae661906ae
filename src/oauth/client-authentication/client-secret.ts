import { verifyClientSecret } from '../../clients/client-secrets.js';
import type { Database } from '../../db/connection.js';
import type { ResolvedClient } from '../client-resolution.js';
import { InvalidClientError } from '../errors.js';

/**
 * client_secret_basic and client_secret_post (RFC 6749 2.3.1): the secret, compared in constant time against the
 * stored scrypt (or legacy SHA-256) hash; a legacy hash is upgraded on success.
 */
export async function verifySecret(db: Database, resolved: ResolvedClient, secret: string): Promise<void> {
  if (resolved.secretHash === null || !(await verifyClientSecret(db, resolved.client.ref, secret, resolved.secretHash))) {
    throw new InvalidClientError('client authentication failed: the client_secret is wrong');
  }
}
