import type { Database } from '../db/connection.js';
import type { Site } from '../sites/sites.js';

/**
 * One anonymous request for the public catalogue of one site: no member, no token. Everything the catalogue shows is
 * what the school publishes to prospective students, so nothing here may depend on who asks.
 */
export class CatalogContext {
  readonly db: Database;
  readonly site: Site;
  /** One clock per request, so "upcoming" and "current" mean the same instant in every list. */
  readonly now: Date;

  constructor(init: { db: Database; site: Site; now?: Date }) {
    this.db = init.db;
    this.site = init.site;
    this.now = init.now ?? new Date();
  }
}

/** Page sizes of the public lists: small by default (agents read them), at most 50. */
export const CATALOGUE_LIMITS = { defaultSize: 10, maxSize: 50 } as const;

