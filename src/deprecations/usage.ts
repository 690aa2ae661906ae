import { requireDate, type Database } from '../db/connection.js';
import { withTransaction } from '../db/transaction.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Logger } from '../shared/logger.js';
import { firstDayOf, utcDay } from './days.js';

/**
 * Daily counts of calls that used a deprecated element, per site, client and element (docs/versioning.md, "Who still
 * uses a deprecated element"), in `deprecation_usage`. Counting is an upsert per call, so every instance adds to the
 * same rows and an operator reads one answer whichever instance serves it.
 */

/** `graphql`: a schema coordinate of the member API (`Course.slug`); `admin`: an admin API operationId. */
export type DeprecatedApi = 'graphql' | 'admin';

export interface UsingClient {
  /** oauth_clients.id */
  ref: number;
  clientId: string;
}

const TABLE = 'deprecation_usage';

/**
 * Counts one use of each element by `client` at the site today (UTC). A failure to count is logged and swallowed:
 * the client's call itself has succeeded or failed on its own merits, and must not fail because of the tally.
 */
export async function recordDeprecatedUses(
  deps: { db: Database; metrics: Metrics; log: Logger },
  use: { siteId: number; client: UsingClient; api: DeprecatedApi; elements: readonly string[] },
  now: Date = new Date(),
): Promise<void> {
  if (use.elements.length === 0) return;
  const rows = use.elements.map((element) => ({ site_id: use.siteId, api: use.api, element, client_ref: use.client.ref, day: utcDay(now), uses: 1, last_used_at: now }));
  try {
    // Two calls counting the same new row at once can deadlock on InnoDB, or lose certification on Galera: rerun.
    await withTransaction(deps.db, (trx) =>
      trx(TABLE)
        .insert(rows)
        .onConflict(['site_id', 'day', 'api', 'element', 'client_ref'])
        .merge({ uses: trx.raw('?? + 1', [`${TABLE}.uses`]), last_used_at: now }),
    );
  } catch (error) {
    deps.log.warn({ err: error, api: use.api, elements: use.elements }, 'could not count a use of a deprecated element');
    return;
  }
  for (const element of use.elements) deps.metrics.deprecatedUses.inc({ api: use.api, element, client_id: use.client.clientId });
}

/** One client's calls of one element over the days asked for. */
export interface ElementUsage {
  api: DeprecatedApi;
  element: string;
  clientId: string;
  clientName: string;
  uses: number;
  lastUsedAt: Date;
}

interface UsageRow {
  api: string;
  element: string;
  client_id: string;
  client_name: string;
  uses: number | string;
  last_used_at: unknown;
}

/**
 * The calls of deprecated elements at a site over the `days` UTC days that end today, per element and client, most
 * used first. One statement: a range of the primary key, grouped.
 */
export async function deprecationUsage(db: Database, siteId: number, days: number, now: Date = new Date()): Promise<ElementUsage[]> {
  const rows = (await db(`${TABLE} as u`)
    .join('oauth_clients as c', 'c.id', 'u.client_ref')
    .where('u.site_id', siteId)
    .andWhere('u.day', '>=', firstDayOf(days, now))
    .groupBy('u.api', 'u.element', 'u.client_ref', 'c.client_id', 'c.name')
    .select('u.api', 'u.element', 'c.client_id', 'c.name as client_name')
    .sum({ uses: 'u.uses' })
    .max({ last_used_at: 'u.last_used_at' })
    .orderBy([{ column: 'uses', order: 'desc' }, 'u.api', 'u.element', 'c.client_id'])) as UsageRow[];
  return rows.map((row) => ({
    api: row.api === 'admin' ? 'admin' : 'graphql',
    element: row.element,
    clientId: row.client_id,
    clientName: row.client_name,
    uses: Number(row.uses),
    lastUsedAt: requireDate(row.last_used_at),
  }));
}
