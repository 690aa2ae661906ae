import DataLoader from 'dataloader';
import type { Database } from '../db/connection.js';
import type { Site } from '../sites/sites.js';

/**
 * One member's request at one site: what the domain layer needs, whichever interface (GraphQL, MCP) calls it.
 * Loaders batch and cache per request, so a whole tree costs a fixed number of set-based queries.
 */
export class MemberContext {
  readonly db: Database;
  readonly site: Site;
  /** The member: the token's resource owner (spec, Authentication 8). */
  readonly userId: number;
  /** One clock per request, so every field agrees on what "now" (live, upcoming, expired) means. */
  readonly now: Date;
  private readonly loaders = new Map<string, DataLoader<unknown, unknown>>();

  constructor(init: { db: Database; site: Site; userId: number; now?: Date }) {
    this.db = init.db;
    this.site = init.site;
    this.userId = init.userId;
    this.now = init.now ?? new Date();
  }

  /** The request's loader named `name`, created on first use with `batch` (keys in, values in the same order out). */
  loader<K, V>(name: string, batch: (keys: readonly K[]) => Promise<ReadonlyArray<V | Error>>): DataLoader<K, V> {
    let loader = this.loaders.get(name);
    if (!loader) {
      loader = new DataLoader<K, V>(batch) as DataLoader<unknown, unknown>;
      this.loaders.set(name, loader);
    }
    return loader as DataLoader<K, V>;
  }
}
