import type { Middleware } from 'koa';
import type { Database } from '../db/connection.js';
import { AppError, SiteNotFoundError } from '../shared/errors.js';
import type { SiteCache } from '../sites/site-cache.js';
import type { Site } from '../sites/sites.js';
import type { SiteState } from './state.js';

/** Origins already worked out, by `protocol://host` as received; bounded, since Host is the client's to choose. */
const knownOrigins = new Map<string, string | null>();
const KNOWN_ORIGINS_LIMIT = 1000;

/** scheme://host[:port] of the request, lower-cased and without a default port, as sites.origin stores it. */
export function requestOrigin(protocol: string, host: string): string | null {
  if (host === '') return null;
  const received = `${protocol}://${host}`;
  let origin = knownOrigins.get(received);
  if (origin !== undefined) return origin;
  // WHATWG URL parsing does the normalisation (case, default port, IDNA); it costs more than the rest of a cheap request.
  try {
    origin = new URL(received).origin;
  } catch {
    origin = null;
  }
  if (knownOrigins.size >= KNOWN_ORIGINS_LIMIT) knownOrigins.clear();
  knownOrigins.set(received, origin);
  return origin;
}

/**
 * Finds the request's site from its origin; `{base_url}` in the spec is that origin. Koa reads
 * X-Forwarded-Proto/Host only when app.proxy is on (TRUST_PROXY). An unknown origin is a 404, never a fallback: it
 * names the origin asked for and, when the database holds a single site, where that site is.
 * Sites come from the process's cache (src/sites/site-cache.ts).
 */
export function siteResolution(db: Database, sites: SiteCache): Middleware<SiteState> {
  const enter = (ctx: Parameters<Middleware<SiteState>>[0], site: Site, next: () => Promise<unknown>) => {
    ctx.state.site = site;
    // The request's own child logger (request-id.ts) takes the site too: one child per request, not two.
    ctx.state.log.setBindings({ siteId: site.id });
    return next();
  };
  // Not async: a site already in the cache costs the request no wait (a throw here rejects, as in an async function).
  return (ctx, next) => {
    const origin = requestOrigin(ctx.protocol, ctx.host);
    if (origin === null) throw new AppError(400, 'invalid_request', 'the request has no usable Host header');
    const cached = sites.fresh(origin);
    if (cached) return enter(ctx, cached, next);
    return sites.find(db, origin).then(async (site) => {
      if (!site) throw new SiteNotFoundError(origin, await sites.onlySite(db));
      return enter(ctx, site, next);
    });
  };
}
