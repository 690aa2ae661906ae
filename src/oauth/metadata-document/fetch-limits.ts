import type { Database } from '../../db/connection.js';
import { currentHits } from '../../db/rate-limit.js';
import { sha256Hex } from '../../shared/random.js';
import { addressBucket, ANONYMOUS_LIMITS, countHit, TooManyRequestsError, type Limit } from '../anonymous-limits.js';
import { MetadataDocumentRefusedError, type RefusalReason } from './errors.js';

/**
 * What a Client ID Metadata Document URL may make us fetch (docs/discovery-and-registration.md): a refused document
 * is remembered per site and URL, so it is fetched at most once per window however often it is named; and fetches are
 * capped per host (whoever asks) and per client address. All counts are shared by every instance.
 */
const REFUSAL_MEMORY: Limit = { limit: 1, windowSeconds: 5 * 60 };
/** Refusals that come from what the document's server answered; a refusal by this site's policy is not remembered. */
const REMEMBERED: ReadonlySet<RefusalReason> = new Set(['fetch_failed', 'timeout', 'redirect', 'http_status', 'too_large', 'invalid_document']);

function refusalBucket(siteId: number, clientId: string): string {
  return `cimd:refused:${sha256Hex(`${siteId} ${clientId}`)}`;
}

/** Throws while a refusal of this document at this site is remembered. */
export async function refuseRecentlyRefused(db: Database, siteId: number, clientId: string): Promise<void> {
  if ((await currentHits(db, refusalBucket(siteId, clientId), REFUSAL_MEMORY.windowSeconds)) > 0) {
    throw new MetadataDocumentRefusedError('recently_refused', `the Client ID Metadata Document at ${clientId} was refused a few minutes ago and is not fetched again yet`);
  }
}

export async function rememberRefusal(db: Database, siteId: number, clientId: string, refusal: MetadataDocumentRefusedError): Promise<void> {
  if (REMEMBERED.has(refusal.reason)) await countHit(db, refusalBucket(siteId, clientId), REFUSAL_MEMORY);
}

/** Counts a fetch from the URL's host, and for the address that caused it when there is one; 429 past either limit. */
export async function countFetch(db: Database, url: URL, requester: string | undefined): Promise<void> {
  const host = url.hostname.length <= 150 ? url.hostname : sha256Hex(url.hostname);
  const byHost = await countHit(db, `cimd:host:${host}`, ANONYMOUS_LIMITS.metadataFetchesPerHost);
  if (!byHost.allowed) throw new TooManyRequestsError(`Too many Client ID Metadata Documents were fetched from ${url.hostname} in the last minute; try again in ${byHost.retryAfterSeconds} seconds.`, byHost.retryAfterSeconds);
  if (requester === undefined) return;
  const byAddress = await countHit(db, addressBucket('cimd', requester), ANONYMOUS_LIMITS.metadataFetchesPerAddress);
  if (!byAddress.allowed) throw new TooManyRequestsError(`Too many Client ID Metadata Documents were fetched for this address in the last minute; try again in ${byAddress.retryAfterSeconds} seconds.`, byAddress.retryAfterSeconds);
}
