import type { Database } from '../../db/connection.js';
import type { Site } from '../../sites/sites.js';
import { resolveClient, type ResolvedClient } from '../client-resolution.js';
import { MetadataDocumentRefusedError } from '../metadata-document/errors.js';
import { UntrustedRequestError } from './errors.js';

/**
 * resolveClient for the pages: a refused Client ID Metadata Document is an untrusted client, shown on the error page
 * and never redirected to (RFC 6749 4.1.2.1), like an unknown client_id; so is a service client, which has no
 * redirect URI to send an error to.
 */
export async function resolvePageClient(db: Database, site: Site, clientId: string, requester?: string): Promise<ResolvedClient | null> {
  let resolved: ResolvedClient | null;
  try {
    resolved = await resolveClient(db, site, clientId, requester === undefined ? undefined : { requester });
  } catch (error) {
    if (error instanceof MetadataDocumentRefusedError) throw new UntrustedRequestError(`This application's client metadata document cannot be used here: ${error.message}`);
    throw error;
  }
  // RFC 6749 4.4: a service client gets its tokens with client_credentials; no one signs in or approves it here.
  if (resolved?.client.kind === 'service') {
    throw new UntrustedRequestError(`${resolved.client.name} is a service client: it gets its tokens from the token endpoint with client_credentials and never signs anyone in.`);
  }
  return resolved;
}
