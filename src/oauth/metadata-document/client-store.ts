import { clientFromRow, type ClientRow, type OAuthClient } from '../../clients/clients.js';
import { toDate, type Database } from '../../db/connection.js';
import { sha256Hex } from '../../shared/random.js';
import type { ClientMetadata } from './validate-document.js';

/** The validators and lifetime of the last good response, kept on the client row (migration 0008). */
export interface Freshness {
  fetchedAt: Date;
  expiresAt: Date;
  etag: string | null;
  lastModified: string | null;
}

export interface CachedDocumentClient {
  client: OAuthClient;
  /** Null: never fetched by this code (e.g. imported); treated as stale. */
  expiresAt: Date | null;
  etag: string | null;
  lastModified: string | null;
}

interface DocumentClientRow extends ClientRow {
  metadata_expires_at: unknown;
  metadata_etag: string | null;
  metadata_last_modified: string | null;
}

async function findRow(db: Database, siteId: number, clientId: string): Promise<DocumentClientRow | undefined> {
  return db<DocumentClientRow>('oauth_clients').where({ site_id: siteId, client_id_hash: sha256Hex(clientId) }).first();
}

/** The site's row for a metadata-document client_id, with its cache state; null when it was never seen. */
export async function findDocumentClient(db: Database, siteId: number, clientId: string): Promise<CachedDocumentClient | null> {
  const row = await findRow(db, siteId, clientId);
  if (!row || row.kind !== 'metadata_document') return null;
  return { client: clientFromRow(row), expiresAt: toDate(row.metadata_expires_at), etag: row.metadata_etag, lastModified: row.metadata_last_modified };
}

function freshnessColumns(freshness: Freshness) {
  return {
    metadata_fetched_at: freshness.fetchedAt,
    metadata_expires_at: freshness.expiresAt,
    // Validators too long for the column are dropped: the next fetch is then unconditional, nothing worse.
    metadata_etag: freshness.etag !== null && freshness.etag.length <= 255 ? freshness.etag : null,
    metadata_last_modified: freshness.lastModified !== null && freshness.lastModified.length <= 64 ? freshness.lastModified : null,
  };
}

/**
 * An operator's review covers what it saw: a new name, a new redirect URI or a new scope in the document puts the
 * client back to unreviewed (read and identity scopes only). Dropping URIs or scopes keeps the review.
 */
function keepsReview(client: OAuthClient, metadata: ClientMetadata): boolean {
  return (
    client.name === metadata.clientName &&
    metadata.redirectUris.every((uri) => client.redirectUris.includes(uri)) &&
    metadata.scopes.every((scope) => client.scopes.includes(scope))
  );
}

function sameRegistration(client: OAuthClient, metadata: ClientMetadata): boolean {
  return client.name === metadata.clientName && JSON.stringify(client.redirectUris) === JSON.stringify(metadata.redirectUris) && JSON.stringify(client.scopes) === JSON.stringify(metadata.scopes);
}

async function insertDocumentClient(db: Database, siteId: number, clientId: string, metadata: ClientMetadata, freshness: Freshness): Promise<void> {
  const now = new Date();
  await db('oauth_clients')
    .insert({
      site_id: siteId,
      client_id: clientId,
      client_id_hash: sha256Hex(clientId),
      name: metadata.clientName,
      // Spec, Authentication 5: metadata documents are the operator-client route; we accept public clients only.
      audience: 'operator',
      confidential: false,
      token_endpoint_auth_method: 'none',
      secret_hash: null,
      redirect_uris: JSON.stringify(metadata.redirectUris),
      scopes: JSON.stringify(metadata.scopes),
      kind: 'metadata_document',
      // First sight: unreviewed, so only read and identity scopes can be granted (scope-policy.ts).
      reviewed: false,
      ...freshnessColumns(freshness),
      created_at: now,
      updated_at: now,
    })
    // Two instances seeing a new document at once both insert; the second one's copy is the same document.
    .onConflict(['site_id', 'client_id_hash'])
    .ignore();
}

/**
 * Stores a freshly fetched, valid document as the client row (CIMD draft, "Metadata Caching": only valid documents
 * are cached). A changed registration is written with a compare-and-set on `version`, so an operator reviewing the
 * client at the same moment is not overwritten; an unchanged one only gets its new freshness.
 */
export async function saveDocumentClient(db: Database, siteId: number, clientId: string, metadata: ClientMetadata, freshness: Freshness): Promise<OAuthClient> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const existing = await findDocumentClient(db, siteId, clientId);
    if (!existing) {
      await insertDocumentClient(db, siteId, clientId, metadata, freshness);
      continue;
    }
    const { client } = existing;
    if (sameRegistration(client, metadata)) {
      await db('oauth_clients').where({ id: client.ref }).update(freshnessColumns(freshness));
      return { ...client };
    }
    const updated = await db('oauth_clients')
      .where({ id: client.ref, version: client.version })
      .update({
        name: metadata.clientName,
        redirect_uris: JSON.stringify(metadata.redirectUris),
        scopes: JSON.stringify(metadata.scopes),
        reviewed: client.reviewed && keepsReview(client, metadata),
        ...freshnessColumns(freshness),
        updated_at: new Date(),
        version: db.raw('version + 1'),
      });
    if (updated > 0) break;
  }
  const saved = await findDocumentClient(db, siteId, clientId);
  if (!saved) throw new Error(`the metadata-document client ${clientId} could not be stored`);
  return saved.client;
}

/** A 304 to a conditional request: the cached registration stands for another freshness lifetime (RFC 9111 4.3.4). */
export async function renewDocumentClient(db: Database, client: OAuthClient, freshness: Freshness): Promise<void> {
  await db('oauth_clients').where({ id: client.ref }).update(freshnessColumns(freshness));
}
