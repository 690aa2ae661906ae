import type { SiteContext } from '../../http/state.js';

/** Metadata documents change only with the site's settings or a key rotation; five minutes of caching is harmless. */
export const METADATA_MAX_AGE_SECONDS = 300;
/** The JWKS is cached for less, so a client that does not refetch on an unknown `kid` still sees a rotated key soon. */
export const JWKS_MAX_AGE_SECONDS = 60;

/**
 * A public JSON document: cacheable, and readable cross-origin (RFC 8414 3 and RFC 9728 3 documents are public;
 * browser-based clients fetch them from other origins).
 */
export function sendMetadata(ctx: SiteContext, document: object, maxAgeSeconds = METADATA_MAX_AGE_SECONDS): void {
  ctx.set('Cache-Control', `public, max-age=${maxAgeSeconds}`);
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.type = 'application/json';
  ctx.body = document;
}

/**
 * A CORS preflight for a metadata document: browser clients that add headers (e.g. MCP-Protocol-Version) ask first.
 * The documents are public and carry no credentials, so any origin and any request header may read them.
 */
export function allowPreflight(ctx: SiteContext): void {
  ctx.status = 204;
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || '*');
  ctx.set('Access-Control-Max-Age', '86400');
}
