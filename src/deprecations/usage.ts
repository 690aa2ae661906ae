import type { Knex } from 'knex';
import { isMysql, requireDate, type Database } from '../db/connection.js';
import { withTransaction } from '../db/transaction.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Logger } from '../shared/logger.js';
import { firstDayOf, utcDay } from './days.js';

/**
 * Daily counts of calls that used a deprecated element, per site, client and element (docs/versioning.md, "Who still
 * uses a deprecated element"), in `deprecation_usage`. A call only adds to this process's tally in memory: nothing
 * is written on a member API or MCP request. The usage flush job (src/housekeeping/usage-flush-job.ts) writes the
 * tally in batches, each one additive upsert, so every instance adds to the same rows and an operator reads one answer
 * whichever instance serves it, once each instance has flushed.
 */

/** `graphql`: a schema coordinate of the member API (`Course.slug`); `admin`: an admin API operationId. */
export type DeprecatedApi = 'graphql' | 'admin';

export interface UsingClient {
  /** oauth_clients.id */
  ref: number;
  clientId: string;
}

const TABLE = 'deprecation_usage';
const KEY_COLUMNS = ['site_id', 'day', 'api', 'element', 'client_ref'];
/** Rows per upsert statement: well under MySQL's packet limit and SQLite's bound-parameter limit (7 columns each). */
const FLUSH_BATCH_ROWS = 500;

interface PendingUses {
  site_id: number;
  day: string;
  api: DeprecatedApi;
  element: string;
  client_ref: number;
  uses: number;
  last_used_at: Date;
}

/** The uses counted by this process and not yet written, per database (one per server; a cluster test runs two). */
const pendingByDatabase = new WeakMap<Database, Map<string, PendingUses>>();

function pendingOf(db: Database): Map<string, PendingUses> {
  let pending = pendingByDatabase.get(db);
  if (!pending) {
    pending = new Map();
    pendingByDatabase.set(db, pending);
  }
  return pending;
}

function addPending(pending: Map<string, PendingUses>, row: PendingUses): void {
  const key = JSON.stringify([row.site_id, row.day, row.api, row.element, row.client_ref]);
  const counted = pending.get(key);
  if (!counted) {
    pending.set(key, { ...row });
    return;
  }
  counted.uses += row.uses;
  if (row.last_used_at > counted.last_used_at) counted.last_used_at = row.last_used_at;
}

/**
 * Counts one use of each element by `client` at the site today (UTC), in memory: the call never waits for, nor fails
 * because of, the tally. The metric is per API and element only (both bounded by the contracts); clients are in the
 * report, not in a label.
 */
export function recordDeprecatedUses(deps: { db: Database; metrics: Metrics; log?: Logger }, use: { siteId: number; client: UsingClient; api: DeprecatedApi; elements: readonly string[] }, now: Date = new Date()): void {
  if (use.elements.length === 0) return;
  const pending = pendingOf(deps.db);
  for (const element of use.elements) {
    addPending(pending, { site_id: use.siteId, day: utcDay(now), api: use.api, element, client_ref: use.client.ref, uses: 1, last_used_at: now });
    deps.metrics.deprecatedUses.inc({ api: use.api, element });
  }
}

/** How many counts (site, day, element and client) wait to be written. */
export function pendingDeprecatedUses(db: Database): number {
  return pendingByDatabase.get(db)?.size ?? 0;
}

/**
 * Writes this process's tally: one upsert statement per batch that adds the batch's counts to the stored ones (and
 * keeps the later last use), so instances flushing the same rows at once sum exactly. A batch that fails is put back
 * into the tally for the next flush, and the error is thrown; batches written before it stay written.
 * Returns the number of rows written.
 */
export async function flushDeprecatedUses(db: Database): Promise<number> {
  const pending = pendingByDatabase.get(db);
  if (!pending || pending.size === 0) return 0;
  const rows = [...pending.values()];
  pending.clear();
  let written = 0;
  try {
    for (; written < rows.length; written += FLUSH_BATCH_ROWS) {
      const batch = rows.slice(written, written + FLUSH_BATCH_ROWS);
      // Two instances adding to the same new rows can deadlock on InnoDB, or lose certification on Galera: rerun.
      await withTransaction(db, (trx) => trx(TABLE).insert(batch).onConflict(KEY_COLUMNS).merge(additiveMerge(trx)));
    }
  } catch (error) {
    for (const row of rows.slice(written)) addPending(pending, row);
    throw error;
  }
  return rows.length;
}

/** The stored row plus the batch's row: MySQL names the new values VALUES(col), SQLite excluded.col. */
function additiveMerge(trx: Knex.Transaction): Record<string, Knex.Raw> {
  if (isMysql(trx)) return { uses: trx.raw('?? + VALUES(??)', ['uses', 'uses']), last_used_at: trx.raw('GREATEST(??, VALUES(??))', ['last_used_at', 'last_used_at']) };
  return { uses: trx.raw('?? + excluded.??', [`${TABLE}.uses`, 'uses']), last_used_at: trx.raw('MAX(??, excluded.??)', [`${TABLE}.last_used_at`, 'last_used_at']) };
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
