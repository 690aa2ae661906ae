import type { OAuthClient } from '../../clients/clients.js';
import type { Database } from '../../db/connection.js';
import type { Site } from '../../sites/sites.js';
import { freshnessLifetimeSeconds } from './cache-policy.js';
import { parseClientIdUrl } from './client-id-url.js';
import { findDocumentClient, renewDocumentClient, saveDocumentClient, type CachedDocumentClient, type Freshness } from './client-store.js';
import { MetadataDocumentRefusedError } from './errors.js';
import { DEFAULT_FETCH_TIMEOUT_MS, DEFAULT_MAX_DOCUMENT_BYTES, fetchMetadataDocument, type FetchResult } from './fetch-document.js';
import { countFetch, refuseRecentlyRefused, rememberRefusal } from './fetch-limits.js';
import { requireHostAccess } from './host-policy.js';
import { validateMetadataDocument } from './validate-document.js';

/** Per-call options: who asked, and knobs for tests (production uses the defaults). */
export interface MetadataDocumentOptions {
  /** The client address whose request made us resolve the document; its fetches are counted. */
  requester?: string;
  timeoutMs?: number;
  maxBytes?: number;
  now?: () => Date;
}

function isFresh(cached: CachedDocumentClient, now: Date): boolean {
  return cached.expiresAt !== null && cached.expiresAt.getTime() > now.getTime();
}

function freshnessOf(result: FetchResult, now: Date): Freshness {
  const { headers } = result;
  return {
    fetchedAt: now,
    expiresAt: new Date(now.getTime() + freshnessLifetimeSeconds(headers) * 1000),
    etag: typeof headers.etag === 'string' ? headers.etag : null,
    lastModified: typeof headers['last-modified'] === 'string' ? headers['last-modified'] : null,
  };
}

async function fetchDocument(url: URL, allowPrivateAddresses: boolean, cached: CachedDocumentClient | null, options: MetadataDocumentOptions): Promise<FetchResult> {
  return fetchMetadataDocument(url, {
    allowPrivateAddresses,
    timeoutMs: options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_DOCUMENT_BYTES,
    etag: cached?.etag ?? null,
    lastModified: cached?.lastModified ?? null,
  });
}

/**
 * The client a Client ID Metadata Document URL names at this site (spec, Authentication 5), as a short pipeline:
 * a well-formed URL → a host the site permits → the shared cache while fresh → otherwise a guarded fetch (conditional
 * when a copy exists) → validation → the stored client row. Refusals throw MetadataDocumentRefusedError
 * (`invalid_client`); a stale copy is never used when its refetch fails.
 */
export async function resolveMetadataDocumentClient(db: Database, site: Site, clientId: string, options: MetadataDocumentOptions = {}): Promise<OAuthClient> {
  const url = parseClientIdUrl(clientId);
  const access = await requireHostAccess(db, site, url);
  const now = options.now?.() ?? new Date();
  const cached = await findDocumentClient(db, site.id, clientId);
  if (cached && isFresh(cached, now)) return cached.client;

  await refuseRecentlyRefused(db, site.id, clientId);
  await countFetch(db, url, options.requester);
  let fetched: FetchResult;
  let metadata: ReturnType<typeof validateMetadataDocument>;
  try {
    fetched = await fetchDocument(url, access.allowlisted, cached, options);
    if (fetched.kind === 'not_modified') {
      if (!cached) throw new MetadataDocumentRefusedError('http_status', `the Client ID Metadata Document at ${url.href} answered 304 to an unconditional request`);
      await renewDocumentClient(db, cached.client, freshnessOf(fetched, now));
      return cached.client;
    }
    metadata = validateMetadataDocument(url, fetched.body);
  } catch (error) {
    if (error instanceof MetadataDocumentRefusedError) await rememberRefusal(db, site.id, clientId, error);
    throw error;
  }
  return saveDocumentClient(db, site.id, clientId, metadata, freshnessOf(fetched, now));
}
