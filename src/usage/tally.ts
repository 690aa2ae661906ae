import type { Knex } from 'knex';
import { isMysql, type Database } from '../db/connection.js';
import { withTransaction } from '../db/transaction.js';
import type { UsageApi } from './export-format.js';

/**
 * The usage tally (docs/usage.md): which client used which elements of the contracts, per site and UTC day, held in
 * this process's memory. A request adds one count and writes nothing; the usage flush job
 * (src/housekeeping/usage-flush-job.ts) writes the tally into `api_usage` in batches of additive upserts, so every
 * instance adds to the same rows and the stored totals are exact however the flushes interleave.
 *
 * What a request adds to is a bundle: the elements one call uses, worked out once (a GraphQL document's operation
 * with all its coordinates, an admin operation, an MCP tool). The request path increments one counter per (site,
 * client, day, bundle); the bundle is expanded into its elements only when the tally is flushed.
 */

/** Anonymous calls (public MCP tools) are counted under this client_ref, which no client has. */
export const ANONYMOUS_CLIENT_REF = 0;

/** The elements one call uses; compared by identity, so build it once and keep it (usageBundle, elementBundle). */
export interface UsageBundle {
  readonly api: UsageApi;
  readonly elements: readonly string[];
}

export function usageBundle(api: UsageApi, elements: readonly string[]): UsageBundle {
  return Object.freeze({ api, elements: Object.freeze([...new Set(elements)]) });
}

const singleBundles = new Map<string, UsageBundle>();
/** Above this many interned single-element bundles (element names from a request, such as enum values), no more are kept. */
const MAX_SINGLE_BUNDLES = 50_000;

/** The bundle of one element (an admin operation, an MCP tool, a coordinate seen in variables), interned. */
export function elementBundle(api: UsageApi, element: string): UsageBundle {
  const key = `${api} ${element}`;
  let bundle = singleBundles.get(key);
  if (!bundle) {
    bundle = usageBundle(api, [element]);
    if (singleBundles.size < MAX_SINGLE_BUNDLES) singleBundles.set(key, bundle);
  }
  return bundle;
}

const TABLE = 'api_usage';
const KEY_COLUMNS = ['site_id', 'day', 'api', 'element', 'client_ref'];
/** Rows per upsert statement: well under MySQL's packet limit and SQLite's bound-parameter limit (7 columns each). */
export const FLUSH_BATCH_ROWS = 500;
const DAY_MS = 24 * 60 * 60 * 1000;

interface Count {
  uses: number;
  lastUsedAt: number;
}

/** One (site, client, day): the counts of its bundles. */
interface Group {
  siteId: number;
  clientRef: number;
  /** Days since 1970-01-01 (UTC). */
  day: number;
  counts: Map<UsageBundle, Count>;
}

/** A row of `api_usage` waiting to be added. */
export interface PendingRow {
  site_id: number;
  day: string;
  api: UsageApi;
  element: string;
  client_ref: number;
  uses: number;
  last_used_at: Date;
}

interface Tally {
  /** The current day's group of each client at each site, by site id then client ref (numbers: no key to build). */
  groups: Map<number, Map<number, Group>>;
  /** Groups of earlier days, replaced when their client was next counted on a later day. */
  closed: Group[];
  /** Rows expanded by a flush whose batch failed: added again by the next flush. */
  retry: Map<string, PendingRow>;
}

/** Per database: one per server, and a cluster test runs two servers in one process. */
const tallies = new WeakMap<Database, Tally>();

function tallyOf(db: Database): Tally {
  let tally = tallies.get(db);
  if (!tally) {
    tally = { groups: new Map(), closed: [], retry: new Map() };
    tallies.set(db, tally);
  }
  return tally;
}

/**
 * Counts one call of `bundle` by `clientRef` (ANONYMOUS_CLIENT_REF for none) at the site, today (UTC), in memory.
 * The call never waits for, nor fails because of, the tally.
 */
export function recordUse(db: Database, siteId: number, clientRef: number, bundle: UsageBundle, now: number = Date.now()): void {
  if (bundle.elements.length === 0) return;
  const tally = tallyOf(db);
  const day = Math.floor(now / DAY_MS);
  let clients = tally.groups.get(siteId);
  if (!clients) {
    clients = new Map();
    tally.groups.set(siteId, clients);
  }
  let group = clients.get(clientRef);
  if (!group || group.day !== day) {
    // A call stamped with an earlier day than the group's (a clock step back) still lands in a group of its own day.
    if (group) tally.closed.push(group);
    group = { siteId, clientRef, day, counts: new Map() };
    clients.set(clientRef, group);
  }
  const count = group.counts.get(bundle);
  if (count) {
    count.uses += 1;
    if (now > count.lastUsedAt) count.lastUsedAt = now;
  } else {
    group.counts.set(bundle, { uses: 1, lastUsedAt: now });
  }
}

/** How many counts (site, client, day and bundle, or rows kept from a failed flush) wait to be written. */
export function pendingUses(db: Database): number {
  const tally = tallies.get(db);
  if (!tally) return 0;
  let pending = tally.retry.size;
  for (const group of groupsOf(tally)) pending += group.counts.size;
  return pending;
}

function* groupsOf(tally: Tally): Iterable<Group> {
  for (const clients of tally.groups.values()) yield* clients.values();
  yield* tally.closed;
}

function addRow(rows: Map<string, PendingRow>, row: PendingRow): void {
  const key = `${row.site_id} ${row.day} ${row.api} ${row.client_ref} ${row.element}`;
  const counted = rows.get(key);
  if (!counted) {
    rows.set(key, { ...row });
    return;
  }
  counted.uses += row.uses;
  if (row.last_used_at > counted.last_used_at) counted.last_used_at = row.last_used_at;
}

/** Takes the tally out of memory as rows of `api_usage`, one per (site, day, element, client). */
function takeRows(tally: Tally): PendingRow[] {
  const rows = tally.retry;
  tally.retry = new Map();
  const groups = [...groupsOf(tally)];
  tally.groups = new Map();
  tally.closed = [];
  for (const group of groups) {
    const day = new Date(group.day * DAY_MS).toISOString().slice(0, 10);
    for (const [bundle, count] of group.counts) {
      const lastUsedAt = new Date(count.lastUsedAt);
      for (const element of bundle.elements) {
        addRow(rows, { site_id: group.siteId, day, api: bundle.api, element, client_ref: group.clientRef, uses: count.uses, last_used_at: lastUsedAt });
      }
    }
  }
  return [...rows.values()];
}

/**
 * Writes this process's tally: one upsert statement per batch that adds the batch's counts to the stored ones (and
 * keeps the later last use), so instances flushing the same rows sum exactly. A batch that fails goes back into the
 * tally with the rest for the next flush, and the error is thrown; batches written before it stay written.
 * Returns the number of rows written.
 */
export async function flushUses(db: Database, options: { batchRows?: number } = {}): Promise<number> {
  const tally = tallies.get(db);
  if (!tally) return 0;
  const rows = takeRows(tally);
  const batchRows = options.batchRows ?? FLUSH_BATCH_ROWS;
  let written = 0;
  try {
    for (; written < rows.length; written += batchRows) {
      const batch = rows.slice(written, written + batchRows);
      // Two instances adding to the same new rows can deadlock on InnoDB, or lose certification on Galera: rerun.
      await withTransaction(db, (trx) => trx(TABLE).insert(batch).onConflict(KEY_COLUMNS).merge(additiveMerge(trx)));
    }
  } catch (error) {
    for (const row of rows.slice(written)) addRow(tally.retry, row);
    throw error;
  }
  return rows.length;
}

/** The stored row plus the batch's row: MySQL names the new values VALUES(col), SQLite excluded.col. */
function additiveMerge(trx: Knex.Transaction): Record<string, Knex.Raw> {
  if (isMysql(trx)) return { uses: trx.raw('?? + VALUES(??)', ['uses', 'uses']), last_used_at: trx.raw('GREATEST(??, VALUES(??))', ['last_used_at', 'last_used_at']) };
  return { uses: trx.raw('?? + excluded.??', [`${TABLE}.uses`, 'uses']), last_used_at: trx.raw('MAX(??, excluded.??)', [`${TABLE}.last_used_at`, 'last_used_at']) };
}
