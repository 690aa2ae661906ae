import { requireDate, type Database } from '../db/connection.js';
import type { Metrics } from '../metrics/metrics.js';
import { firstDayOf } from './days.js';

/**
 * Who still uses a deprecated element (docs/versioning.md, "Who still uses a deprecated element"): the usage counts
 * of every element (src/usage/tally.ts, table `api_usage`, docs/usage.md) read for the deprecated ones. The metric
 * `deprecatedUses` counts deprecated elements only, so its labels stay bounded by the contracts.
 */

/** `graphql`: a schema coordinate of the member API (`Course.slug`); `admin`: an admin API operationId. */
export type DeprecatedApi = 'graphql' | 'admin';

/** Adds the calls of deprecated elements to the metric (per API and element; clients are in the report, not in a label). */
export function countDeprecatedUses(metrics: Metrics, api: DeprecatedApi, elements: readonly string[]): void {
  for (const element of elements) metrics.deprecatedUses.inc({ api, element });
}

const TABLE = 'api_usage';

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
 * The calls of the given deprecated elements at a site over the `days` UTC days that end today, per element and
 * client, most used first (clients only: deprecated elements are not public tools, and a deleted client's rows wait
 * for the prune). One statement over the (site, api, element, day) index, grouped.
 */
export async function deprecationUsage(db: Database, siteId: number, days: number, elements: ReadonlyArray<{ api: DeprecatedApi; element: string }>, now: Date = new Date()): Promise<ElementUsage[]> {
  if (elements.length === 0) return [];
  const byApi = new Map<DeprecatedApi, string[]>();
  for (const { api, element } of elements) byApi.set(api, [...(byApi.get(api) ?? []), element]);
  const rows = (await db(`${TABLE} as u`)
    .join('oauth_clients as c', 'c.id', 'u.client_ref')
    .where('u.site_id', siteId)
    .andWhere((q) => {
      for (const [api, names] of byApi) q.orWhere((one) => one.where('u.api', api).whereIn('u.element', names));
    })
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
