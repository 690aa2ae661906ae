import { statementOf, type StatementBook } from './statements.js';
import type { RawStore, Row } from './store.js';

/** As the product's site cache (SCHOOLGATE_SITE_CACHE_SECONDS, 5 s by default): the site is read at most once per lifetime. */
const SITE_LIFETIME_MS = 5000;

let cached: { site: Row; fetchedAt: number } | null = null;

/** The product's site, read by the product's own statement at most once per 5 s; null when it no longer exists. */
export async function siteOf(store: RawStore, book: StatementBook): Promise<Row | null> {
  const now = Date.now();
  if (cached && now - cached.fetchedAt < SITE_LIFETIME_MS) return cached.site;
  // knex's first() binds its LIMIT 1.
  const values = [book.origin, 1];
  const [site] = await store.all(statementOf(book, 'site', values), values);
  cached = site ? { site, fetchedAt: now } : null;
  return site ?? null;
}

/** A new statement book names the site afresh. */
export function forgetSite(): void {
  cached = null;
}
