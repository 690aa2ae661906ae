import { DEFAULT_SITE_CACHE_SIZE } from '../config/config.js';
import type { Database } from '../db/connection.js';
import type { SiteAddress } from '../shared/errors.js';
import { logFailure } from '../shared/failure-log.js';
import type { Logger } from '../shared/logger.js';
import { LruCache } from '../shared/lru-cache.js';
import { findOnlySite } from './only-site.js';
import { sameSite } from './same-site.js';
import { findSiteByOrigin, findSitesByOrigins, siteWriteGeneration, type Site } from './sites.js';

interface Entry {
  site: Site;
  fetchedAt: number;
  generation: number;
  /** A background read of this entry is queued or running. */
  refreshing: boolean;
  /** After a failed background read, none is started again before this time. */
  retryAt: number;
}

/** How to get the logger of a background read's failure: asked only then, since a request's own logger is made only when it is used (src/http/request-id.ts). */
export type LogOf = () => Logger;

export interface SiteCache {
  /** How many sites it keeps at most (SCHOOLGATE_SITE_CACHE_SIZE). */
  readonly capacity: number;
  /** The site of an origin, from the cache while it may be served, else read (concurrent reads of one origin share one); an unknown origin is asked of the database each time. */
  find(db: Database, origin: string, log: LogOf): Promise<Site | null>;
  /**
   * The site of an origin without a wait while its entry may be served: fresh, or stale with one background read
   * refreshing it; undefined when `find` would have to read it.
   */
  fresh(db: Database, origin: string, log: LogOf): Site | undefined;
  /**
   * The database's one site when it holds exactly one, else null (src/sites/only-site.ts), for the answer to an
   * unknown origin; read at most once per lifetime (at least a second), so a flood of unknown origins costs one query each.
   */
  onlySite(db: Database): Promise<SiteAddress | null>;
  /** Starts the background reads queued so far without waiting for their batch, and resolves once they have finished (tests; a stopping process). */
  refreshed(): Promise<void>;
}

export interface SiteCacheOptions {
  /** Sites kept at most, the least recently asked dropped first. */
  capacity?: number;
  clock?: () => number;
  /** How long stale entries wait to be read together in one statement. */
  batchWindowMs?: number;
}

/** Background reads of stale entries wait this long to share one statement: at 10,000 busy sites, ~20 statements a second instead of ~2,000. */
const REFRESH_BATCH_MS = 50;
/** Origins per statement: within SQLite's limit on bound parameters and far within MySQL's packet. */
const REFRESH_BATCH_ORIGINS = 500;
/** After a failed background read, its entries are not read again for this long (they stay served until their end). */
const FAILED_REFRESH_PAUSE_MS = 1000;

/**
 * The sites of this process's origins. An entry is served as read for `lifetimeMs`; for as long again it is served
 * stale while ONE background read refreshes it (sites change rarely, and every request needs its site, so a busy
 * site is never read while a request waits); past that, a request reads it. So a change made by another process
 * (the CLI, another instance) is seen within twice `lifetimeMs`, within `lifetimeMs` and one read on a site in use.
 * A write to a site made by this process (admin API, admin pages, an import) bumps siteWriteGeneration: every entry
 * read before it is neither fresh nor servable stale, and a read that began before it is not kept, so the very next
 * request sees the write. At most `capacity` entries are kept, the least recently asked dropped first; an unknown
 * origin is never kept. `lifetimeMs` 0 reads every time. One cache per application, so two applications over two
 * databases never share entries.
 */
export function createSiteCache(lifetimeMs: number, options: SiteCacheOptions = {}): SiteCache {
  const capacity = options.capacity ?? DEFAULT_SITE_CACHE_SIZE;
  const clock = options.clock ?? Date.now;
  const batchWindowMs = options.batchWindowMs ?? REFRESH_BATCH_MS;
  const entries = new LruCache<string, Entry>(capacity);
  /** Reads a request waits for, by origin; shared only by requests of the same write generation. */
  const reading = new Map<string, { generation: number; promise: Promise<Site | null> }>();
  /** Origins waiting for the next background read, and what that read needs. */
  let queued: { db: Database; log: LogOf; origins: string[] } | null = null;
  const running = new Set<Promise<void>>();
  let only: { value: SiteAddress | null; fetchedAt: number; generation: number } | null = null;
  const onlyLifetimeMs = Math.max(lifetimeMs, 1000);

  /** Keeps a read unless the entry was since read again more recently; an unchanged site keeps its object (per-site artefacts are kept by it). */
  const remember = (origin: string, site: Site, readAt: number, generation: number) => {
    const known = entries.peek(origin);
    if (known && known.generation === generation && known.fetchedAt > readAt) return;
    const kept = known && sameSite(known.site, site) ? known.site : site;
    entries.set(origin, { site: kept, fetchedAt: readAt, generation, refreshing: false, retryAt: 0 });
  };

  async function refresh(db: Database, log: LogOf, origins: string[]): Promise<void> {
    const readAt = clock();
    const generation = siteWriteGeneration();
    let found: Map<string, Site>;
    try {
      found = await findSitesByOrigins(db, origins);
    } catch (error) {
      // The entries stay served until the end of their stale time; a request after that reads, and answers the failure.
      logFailure(log(), error, 'could not refresh cached sites; serving them as read before', { sites: origins.length });
      const retryAt = clock() + FAILED_REFRESH_PAUSE_MS;
      for (const origin of origins) {
        const entry = entries.peek(origin);
        if (!entry) continue;
        entry.refreshing = false;
        entry.retryAt = retryAt;
      }
      return;
    }
    // A write by this process during the read: what was read may predate it, and every entry is already invalid.
    if (generation !== siteWriteGeneration()) return;
    for (const origin of origins) {
      const site = found.get(origin);
      // An entry dropped meanwhile (evicted) stays dropped; a site gone from the database (deleted, moved) is dropped.
      if (!entries.peek(origin)) continue;
      if (site) remember(origin, site, readAt, generation);
      else entries.delete(origin);
    }
  }

  const runQueued = () => {
    const batch = queued;
    queued = null;
    if (!batch) return;
    for (let start = 0; start < batch.origins.length; start += REFRESH_BATCH_ORIGINS) {
      const done: Promise<void> = refresh(batch.db, batch.log, batch.origins.slice(start, start + REFRESH_BATCH_ORIGINS)).finally(() => running.delete(done));
      running.add(done);
    }
  };

  const refreshLater = (db: Database, log: LogOf, origin: string, entry: Entry) => {
    entry.refreshing = true;
    if (queued) {
      queued.origins.push(origin);
      return;
    }
    queued = { db, log, origins: [origin] };
    // Not holding the process open: a stopping server drops the refresh, and the entry with it.
    setTimeout(runQueued, batchWindowMs).unref();
  };

  const fresh = (db: Database, origin: string, log: LogOf): Site | undefined => {
    const entry = entries.get(origin);
    if (!entry || entry.generation !== siteWriteGeneration()) return undefined;
    const now = clock();
    const age = now - entry.fetchedAt;
    if (age < lifetimeMs) return entry.site;
    if (age >= 2 * lifetimeMs) return undefined;
    if (!entry.refreshing && now >= entry.retryAt) refreshLater(db, log, origin, entry);
    return entry.site;
  };

  return {
    capacity,
    fresh,
    find(db, origin, log) {
      const cached = fresh(db, origin, log);
      if (cached) return Promise.resolve(cached);
      const generation = siteWriteGeneration();
      const pending = reading.get(origin);
      if (pending && pending.generation === generation) return pending.promise;
      const readAt = clock();
      const promise = findSiteByOrigin(db, origin)
        .then((site) => {
          if (site && lifetimeMs > 0) remember(origin, site, readAt, generation);
          else entries.delete(origin);
          return site;
        })
        .finally(() => {
          if (reading.get(origin)?.promise === promise) reading.delete(origin);
        });
      reading.set(origin, { generation, promise });
      return promise;
    },
    async onlySite(db) {
      if (only && only.generation === siteWriteGeneration() && clock() - only.fetchedAt < onlyLifetimeMs) return only.value;
      const readAt = clock();
      const readGeneration = siteWriteGeneration();
      const value = await findOnlySite(db);
      only = { value, fetchedAt: readAt, generation: readGeneration };
      return value;
    },
    async refreshed() {
      runQueued();
      await Promise.all([...running]);
    },
  };
}
