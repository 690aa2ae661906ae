import type { Database } from '../db/connection.js';
import type { SiteAddress } from '../shared/errors.js';
import { findOnlySite } from './only-site.js';
import { findSiteByOrigin, siteWriteGeneration, type Site } from './sites.js';

interface Entry {
  site: Site;
  fetchedAt: number;
  generation: number;
}

export interface SiteCache {
  /** The site of an origin, from the cache while its entry is fresh; an unknown origin is asked of the database each time. */
  find(db: Database, origin: string): Promise<Site | null>;
  /** The site of an origin while its entry is fresh, without a wait; undefined when `find` would read it. */
  fresh(origin: string): Site | undefined;
  /**
   * The database's one site when it holds exactly one, else null (src/sites/only-site.ts), for the answer to an
   * unknown origin; read at most once per lifetime (at least a second), so a flood of unknown origins costs one query each.
   */
  onlySite(db: Database): Promise<SiteAddress | null>;
}

/**
 * The sites of this process's origins, each read from the database at most once per `lifetimeMs` (sites change
 * rarely, and every request needs its site). `lifetimeMs` 0 reads every time. A write to a site made by this process
 * (admin API, admin pages, an import) drops every entry, so the next request sees it; a change made by another
 * process (the CLI, another instance) is seen once the entry is older than `lifetimeMs`. One cache per application,
 * so two applications over two databases never share entries.
 */
export function createSiteCache(lifetimeMs: number, clock: () => number = Date.now): SiteCache {
  const entries = new Map<string, Entry>();
  let only: { value: SiteAddress | null; fetchedAt: number; generation: number } | null = null;
  const onlyLifetimeMs = Math.max(lifetimeMs, 1000);
  const fresh = (origin: string): Site | undefined => {
    const entry = entries.get(origin);
    return entry && entry.generation === siteWriteGeneration() && clock() - entry.fetchedAt < lifetimeMs ? entry.site : undefined;
  };
  return {
    fresh,
    async find(db, origin) {
      const cached = fresh(origin);
      if (cached) return cached;
      const readAt = clock();
      const readGeneration = siteWriteGeneration();
      const site = await findSiteByOrigin(db, origin);
      if (site && lifetimeMs > 0) entries.set(origin, { site, fetchedAt: readAt, generation: readGeneration });
      else entries.delete(origin);
      return site;
    },
    async onlySite(db) {
      if (only && only.generation === siteWriteGeneration() && clock() - only.fetchedAt < onlyLifetimeMs) return only.value;
      const readAt = clock();
      const readGeneration = siteWriteGeneration();
      const value = await findOnlySite(db);
      only = { value, fetchedAt: readAt, generation: readGeneration };
      return value;
    },
  };
}
