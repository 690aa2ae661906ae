/**
 * `count(*)` of every table of the scratch database, in one statement (one round trip per snapshot), so the row-count
 * property can be checked around every single request and fast-check can shrink a failure to the request that wrote.
 */
import type { Database } from '../../../src/db/connection.js';

/**
 * Tables left out of the row-count property, and why: rate_limit_counters holds the rate limiter's window
 * counters (docs/oauth.md, "Limits on anonymous traffic"; docs/authorize.md, "Counter storage"). Failed token,
 * revocation and registration requests are counted there by design, so a refused request may legitimately add a row.
 */
export const COUNTER_TABLES: readonly string[] = ['rate_limit_counters'];

export type RowCounts = Record<string, number>;

export type StoreKind = 'sqlite' | 'mysql';

export async function tableNames(db: Database, kind: StoreKind): Promise<string[]> {
  let names: string[];
  if (kind === 'sqlite') {
    const rows = (await db.raw("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")) as Array<{ name: string }>;
    names = rows.map((row) => row.name);
  } else {
    const [rows] = (await db.raw('select table_name as name from information_schema.tables where table_schema = database() and table_type = ?', ['BASE TABLE'])) as [Array<{ name: string }>];
    names = rows.map((row) => row.name);
  }
  return names.filter((name) => !COUNTER_TABLES.includes(name)).sort();
}

/** A function that snapshots the row counts of `tables` in one query. */
export function rowCounter(db: Database, kind: StoreKind, tables: readonly string[]): () => Promise<RowCounts> {
  const quote = (name: string) => (kind === 'sqlite' ? `"${name}"` : `\`${name}\``);
  const sql = `select ${tables.map((table, index) => `(select count(*) from ${quote(table)}) as c${index}`).join(', ')}`;
  const isSqlite = kind === 'sqlite';
  return async () => {
    const result = (await db.raw(sql)) as unknown;
    const row = (isSqlite ? (result as Array<Record<string, number | string>>)[0] : (result as [Array<Record<string, number | string>>])[0][0]) ?? {};
    const counts: RowCounts = {};
    tables.forEach((table, index) => {
      counts[table] = Number(row[`c${index}`]);
    });
    return counts;
  };
}

/** The tables whose counts differ, as "table: before → after". */
export function countChanges(before: RowCounts, after: RowCounts): string[] {
  return Object.keys(before)
    .filter((table) => before[table] !== after[table])
    .map((table) => `${table}: ${before[table]} → ${after[table]}`);
}
