import type { JSONWebKeySet, JWK } from 'jose';
import { clientKeyProblems } from '../../clients/client-keys.js';
import type { OAuthClient } from '../../clients/clients.js';
import type { Database } from '../../db/connection.js';
import { metadataDocumentHosts } from '../../sites/registration-policy.js';
import type { Site } from '../../sites/sites.js';
import { InvalidClientError } from '../errors.js';
import { freshnessLifetimeSeconds } from '../metadata-document/cache-policy.js';
import { DEFAULT_FETCH_TIMEOUT_MS, DEFAULT_MAX_DOCUMENT_BYTES, fetchMetadataDocument, type FetchResult } from '../metadata-document/fetch-document.js';
import { countFetch } from '../metadata-document/fetch-limits.js';
import { hostAccess } from '../metadata-document/host-policy.js';

/**
 * A client's private_key_jwt keys: its inline `jwks`, or the JWK Set at its `jwks_uri`. A jwks_uri is fetched exactly
 * like a Client ID Metadata Document (same fetcher: https only, no redirects, size and time limits, the SSRF address
 * guard with the site's allowlist as the only way to a private address; the same per-host fetch limit shared by every
 * instance) and kept per process for the document's HTTP freshness lifetime, like jose's createRemoteJWKSet. Nothing
 * another instance needs lives here: each instance fetches for itself.
 */

interface CachedKeySet {
  keys: JSONWebKeySet;
  fetchedAt: number;
  expiresAt: number;
  etag: string | null;
  lastModified: string | null;
}

/** Bounds the per-process cache; the oldest entry goes first. */
const MAX_CACHED_SETS = 500;
/**
 * An unknown kid refetches the set (key rotation), but at most once per cooldown per set (30 s, as jose's remote set),
 * so bad assertions cannot drive fetches. Tests shorten it.
 */
export const keySetTiming = { refetchCooldownMs: 30_000 };
const cache = new Map<string, CachedKeySet>();

export interface ClientKeySetOptions {
  now?: () => number;
  timeoutMs?: number;
}

const cacheKey = (site: Site, uri: string) => `${site.id} ${uri}`;

/** Keys of a fetched set that can verify assertions; encryption keys, other algorithms and private keys are ignored. */
function usableKeys(url: URL, body: unknown): JSONWebKeySet {
  const keys = body !== null && typeof body === 'object' && Array.isArray((body as { keys?: unknown }).keys) ? ((body as { keys: unknown[] }).keys) : undefined;
  if (!keys) throw new InvalidClientError(`the client's jwks_uri ${url.href} does not serve a JWK Set (a JSON object with a "keys" array)`);
  const usable = keys.filter((key) => clientKeyProblems(key).length === 0) as JWK[];
  if (usable.length === 0) throw new InvalidClientError(`the client's jwks_uri ${url.href} holds no usable public signing key (EC P-256, RSA of at least 2048 bits or Ed25519)`);
  return { keys: usable };
}

async function fetchKeySet(db: Database, site: Site, uri: string, cached: CachedKeySet | undefined, options: ClientKeySetOptions): Promise<CachedKeySet> {
  const url = new URL(uri);
  const access = hostAccess(site, await metadataDocumentHosts(db, site.id), url.hostname);
  await countFetch(db, url, undefined);
  const result: FetchResult = await fetchMetadataDocument(url, {
    allowPrivateAddresses: access?.allowlisted ?? false,
    timeoutMs: options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
    maxBytes: DEFAULT_MAX_DOCUMENT_BYTES,
    etag: cached?.etag ?? null,
    lastModified: cached?.lastModified ?? null,
    subject: 'client JWK Set',
    accept: 'application/jwk-set+json, application/json',
  });
  const now = options.now?.() ?? Date.now();
  const keys = result.kind === 'not_modified' && cached ? cached.keys : result.kind === 'document' ? usableKeys(url, result.body) : undefined;
  if (!keys) throw new InvalidClientError(`the client's jwks_uri ${url.href} answered 304 to an unconditional request`);
  return {
    keys,
    fetchedAt: now,
    expiresAt: now + freshnessLifetimeSeconds(result.headers) * 1000,
    etag: typeof result.headers.etag === 'string' ? result.headers.etag : null,
    lastModified: typeof result.headers['last-modified'] === 'string' ? result.headers['last-modified'] : null,
  };
}

function remember(key: string, entry: CachedKeySet): void {
  cache.delete(key);
  cache.set(key, entry);
  if (cache.size > MAX_CACHED_SETS) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
}

/** The client's registered keys; `refresh` refetches a jwks_uri set unless it was fetched within the cooldown. */
export async function clientKeySet(db: Database, site: Site, client: OAuthClient, refresh = false, options: ClientKeySetOptions = {}): Promise<JSONWebKeySet | null> {
  if (client.jwks) return { keys: client.jwks.keys as JWK[] };
  if (client.jwksUri === null) return null;
  const key = cacheKey(site, client.jwksUri);
  const cached = cache.get(key);
  const now = options.now?.() ?? Date.now();
  const fresh = cached !== undefined && cached.expiresAt > now && !(refresh && now - cached.fetchedAt >= keySetTiming.refetchCooldownMs);
  if (fresh) return cached.keys;
  // A stale copy is never used when its refetch fails (as for metadata documents).
  const entry = await fetchKeySet(db, site, client.jwksUri, cached, options);
  remember(key, entry);
  return entry.keys;
}

/** True when a refresh of this client's set would fetch: it has a jwks_uri whose set is past the cooldown. */
export function canRefetch(site: Site, client: OAuthClient, now = Date.now()): boolean {
  if (client.jwks || client.jwksUri === null) return false;
  const cached = cache.get(cacheKey(site, client.jwksUri));
  return cached === undefined || now - cached.fetchedAt >= keySetTiming.refetchCooldownMs;
}

/** Tests: start from an empty cache. */
export function forgetCachedKeySets(): void {
  cache.clear();
}
