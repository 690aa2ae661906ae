import type { Middleware } from 'koa';
import type { Database } from '../db/connection.js';
import { AppError, SiteNotFoundError } from '../shared/errors.js';
import { LruCache } from '../shared/lru-cache.js';
import type { SiteCache } from '../sites/site-cache.js';
import type { Site } from '../sites/sites.js';
import { bindSiteToRequestLog } from './request-id.js';
import type { SiteState } from './state.js';

/**
 * scheme://host[:port] of the request, lower-cased and without a default port, as sites.origin stores it, memoised
 * by `protocol://host` as received in `known` (an LRU: Host is the client's to choose, and a memo emptied when full
 * would parse every origin again once a process serves more hosts than it holds).
 */
export function requestOrigin(protocol: string, host: string, known: LruCache<string, string | null>): string | null {
  if (host === '') return null;
  const received = `${protocol}://${host}`;
  let origin = known.get(received);
  if (origin !== undefined) return origin;
  // WHATWG URL parsing does the normalisation (case, default port, IDNA); it costs more than the rest of a cheap request.
  try {
    origin = new URL(received).origin;
  } catch {
    origin = null;
  }
  known.set(received, origin);
  return origin;
}

/**
 * Finds the request's site from its origin; `{base_url}` in the spec is that origin. Koa reads
 * X-Forwarded-Proto/Host only when app.proxy is on (TRUST_PROXY). An unknown origin is a 404, never a fallback: it
 * names the origin asked for and, when the database holds a single site, where that site is.
 * Sites come from the process's cache (src/sites/site-cache.ts): a cached site, fresh or served while it is refreshed,
 * costs the request no wait.
 */
export function siteResolution(db: Database, sites: SiteCache): Middleware<SiteState> {
  const enter = (ctx: Parameters<Middleware<SiteState>>[0], site: Site, next: () => Promise<unknown>) => {
    ctx.state.site = site;
    bindSiteToRequestLog(ctx.state, site.id);
    return next();
  };
  // Sized like the site cache: every cached site's origin stays parsed.
  const knownOrigins = new LruCache<string, string | null>(sites.capacity);
  // Not async: a site already in the cache costs the request no wait (a throw here rejects, as in an async function).
  return (ctx, next) => {
    const origin = requestOrigin(ctx.protocol, ctx.host, knownOrigins);
    if (origin === null) throw new AppError(400, 'invalid_request', 'the request has no usable Host header');
    // Asked for only if a background read of the site fails: the request's logger is made on first use.
    const logOf = () => ctx.state.log;
    const cached = sites.fresh(db, origin, logOf);
    if (cached) return enter(ctx, cached, next);
    return sites.find(db, origin, logOf).then(async (site) => {
      if (!site) throw new SiteNotFoundError(origin, await sites.onlySite(db));
      return enter(ctx, site, next);
    });
  };
}
