import { findClientWithSecret, type OAuthClient } from '../clients/clients.js';
import type { Database } from '../db/connection.js';
import type { Site } from '../sites/sites.js';
import { isMetadataDocumentClientId, resolveMetadataDocumentClient, type MetadataDocumentOptions } from './metadata-document/index.js';

export interface ResolvedClient {
  client: OAuthClient;
  secretHash: string | null;
}

/**
 * The client a `client_id` names at this site: a registered client (operator-created or vendor platform), or, for an
 * `https://` client_id, the client its Client ID Metadata Document describes (spec, Authentication 5). Null for an
 * unknown plain client_id; a refused document throws MetadataDocumentRefusedError (`invalid_client`, with the reason
 * in its description). `options` only shortens timeouts and limits in tests.
 */
export async function resolveClient(db: Database, site: Site, clientId: string, options?: MetadataDocumentOptions): Promise<ResolvedClient | null> {
  const registered = await findClientWithSecret(db, site.id, clientId);
  if (registered && registered.client.kind !== 'metadata_document') return registered;
  if (!isMetadataDocumentClientId(clientId)) return registered;
  return { client: await resolveMetadataDocumentClient(db, site, clientId, options), secretHash: null };
}
