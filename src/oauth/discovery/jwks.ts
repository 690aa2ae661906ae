import type { JWK } from 'jose';
import type { Database } from '../../db/connection.js';
import { activeSigningKey, publishedJwks } from '../../keys/signing-keys.js';

/**
 * The JWK Set at `jwks_uri` (RFC 7517 5): the site's active ES256 key and recently retired ones. A site that never
 * signed anything gets its first key now, so the document a client caches already names the key id_tokens will use.
 */
export async function siteJwks(db: Database, siteId: number): Promise<{ keys: JWK[] }> {
  const published = await publishedJwks(db, siteId);
  if (published.keys.length > 0) return published;
  await activeSigningKey(db, siteId);
  return publishedJwks(db, siteId);
}
