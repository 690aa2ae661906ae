import type { Knex } from 'knex';
import { isMysql } from '../db/connection.js';
import { columnsOf, desiredRow, stampInsert, updateChanged, type ColumnValue, type Row, type UpsertResult } from './upsert.js';

/** One row to upsert: its match conditions, tried in order (as upsertRow), and the values to write. */
export interface BatchRow {
  keys: readonly Row[];
  values: Row;
  /** Columns written only when the row is inserted (SQL expressions allowed): what an update would leave alone. */
  inserted?: Record<string, ColumnValue | Knex.Raw>;
}

type InsertRow = Record<string, ColumnValue | Knex.Raw>;

export interface BatchOptions {
  /** Re-read the ids of inserted rows (one more SELECT per statement's worth of keys); off when nobody needs them. */
  ids?: boolean;
  /** Insert the rows no key finds and leave the others alone, counted unchanged (accounts shared by schools). */
  insertOnly?: boolean;
  /** The caller knows that no row has any of the keys (they name a site this transaction created): no lookups. */
  noneStored?: boolean;
}

/**
 * Bound values per statement: under SQLite's limit (32,766 since 3.32) and, for the short rows the importer batches,
 * far under MySQL's max_allowed_packet (16 MB by default on MariaDB).
 */
const MAX_PARAMETERS = 10000;
/** knex writes a multi-row INSERT on SQLite as a compound SELECT, which SQLite caps at 500 terms (SQLITE_MAX_COMPOUND_SELECT). */
const MAX_ROWS_PER_INSERT = 500;

type Stored = Record<string, unknown>;

/**
 * A key's columns as one string. A stored value is read the way the desired one is typed (ids may come back as strings,
 * times as Date or epoch milliseconds); strings fold case on MySQL, whose unique indexes compare that way, so a row the
 * batch finds is the row upsertRow's `WHERE key = ?` found.
 */
function keyString(key: Row, source: Row | Stored, fold: (text: string) => string): string {
  const parts: string[] = [];
  for (const [column, desired] of Object.entries(key)) {
    const value = source[column];
    if (desired === null || value === null || value === undefined) parts.push('\u0001');
    else if (desired instanceof Date) parts.push(String(value instanceof Date ? value.getTime() : Number(value)));
    else if (typeof desired === 'number' || typeof desired === 'boolean') parts.push(String(Number(value)));
    else parts.push(fold(String(value)));
  }
  return parts.join('\u0000');
}

function slices<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/** Stored rows matching any of `keys` (all with the same columns): one `SELECT … WHERE column IN (…)` per slice. */
async function findByKeys(trx: Knex.Transaction, table: string, keys: readonly Row[], fold: (text: string) => string, select: readonly string[] | '*'): Promise<Map<string, Stored>> {
  const found = new Map<string, Stored>();
  const first = keys[0];
  if (!first) return found;
  const columns = Object.keys(first);
  for (const slice of slices(keys, Math.floor(MAX_PARAMETERS / columns.length))) {
    const query = trx(table);
    // Each column IN its distinct values: a superset of the keys when a key has several columns, narrowed below.
    for (const column of columns) {
      const values = [...new Map(slice.map((key) => [keyString({ [column]: key[column] ?? null }, key, fold), key[column] ?? null])).values()];
      if (values.length === 1) query.where(column, values[0] as ColumnValue);
      else query.whereIn(column, values as Array<Exclude<ColumnValue, null | boolean>>);
    }
    const rows: Stored[] = await (select === '*' ? query.select('*') : query.select(...select));
    for (const row of rows) found.set(keyString(first, row, fold), row);
  }
  return found;
}

/**
 * upsertRow for many rows of one table at once, with the same outcome row by row: per key tried, one SELECT with the
 * keys in IN lists; the new rows in multi-row INSERTs; an UPDATE only for a row whose stored columns differ (so a
 * re-import writes nothing). The rows must have distinct keys (the document's validation guarantees it).
 */
export async function upsertRows(trx: Knex.Transaction, table: string, rows: readonly BatchRow[], now: Date, options: BatchOptions = {}): Promise<UpsertResult[]> {
  if (rows.length === 0) return [];
  const columns = await columnsOf(trx, table);
  const hasId = columns.has('id');
  const fold = isMysql(trx) ? (text: string) => text.toLowerCase() : (text: string) => text;
  const stored: Array<{ row: Stored; by: Row } | undefined> = new Array<undefined>(rows.length);
  const tries = options.noneStored ? 0 : Math.max(...rows.map((row) => row.keys.length));
  for (let attempt = 0; attempt < tries; attempt += 1) {
    const pending = rows.flatMap((row, index) => (stored[index] === undefined && row.keys[attempt] ? [index] : []));
    const keys = pending.map((index) => rows[index]?.keys[attempt] as Row);
    if (keys.length === 0) continue;
    const found = await findByKeys(trx, table, keys, fold, options.insertOnly ? [...(hasId ? ['id'] : []), ...Object.keys(keys[0] ?? {})] : '*');
    pending.forEach((index, at) => {
      const key = keys[at] as Row;
      const row = found.get(keyString(key, key, fold));
      if (row) stored[index] = { row, by: key };
    });
  }

  const results: UpsertResult[] = new Array<UpsertResult>(rows.length);
  const inserts: Array<{ index: number; row: InsertRow }> = [];
  for (const [index, { keys, values, inserted }] of rows.entries()) {
    const desired = desiredRow(keys, values);
    const existing = stored[index];
    if (!existing) {
      // desired is this row's own new object: stamped and completed in place rather than copied twice per row.
      inserts.push({ index, row: Object.assign(stampInsert(desired, columns, now), inserted) });
      continue;
    }
    const id = hasId ? Number(existing.row.id) : null;
    // insertOnly read only the ids and keys: nothing to compare, and nothing to write.
    const outcome = options.insertOnly ? 'unchanged' : await updateChanged(trx, table, columns, existing.row, desired, id !== null ? { id } : existing.by, now);
    results[index] = { outcome, id };
  }

  await insertRows(trx, table, inserts.map((insert) => insert.row));
  const ids = hasId && options.ids && inserts.length > 0 ? await findByKeys(trx, table, inserts.map(({ index }) => rows[index]?.keys[0] as Row), fold, ['id', ...Object.keys(rows[0]?.keys[0] ?? {})]) : undefined;
  for (const { index } of inserts) {
    const key = rows[index]?.keys[0] as Row;
    const id = ids?.get(keyString(key, key, fold))?.id;
    results[index] = { outcome: 'created', id: id === undefined ? null : Number(id) };
  }
  return results;
}

/** Multi-row INSERTs, rows grouped by their column list (a missing optional column is not the same as NULL: defaults). */
async function insertRows(trx: Knex.Transaction, table: string, rows: readonly InsertRow[]): Promise<void> {
  const groups = new Map<string, InsertRow[]>();
  // The rows of one batch mostly list their columns in the same order: sort each distinct order once, not every row.
  const sorted = new Map<string, string>();
  for (const row of rows) {
    const columns = Object.keys(row);
    const order = columns.join(',');
    let signature = sorted.get(order);
    if (signature === undefined) {
      signature = columns.sort().join(',');
      sorted.set(order, signature);
    }
    const group = groups.get(signature);
    if (group) group.push(row);
    else groups.set(signature, [row]);
  }
  for (const group of groups.values()) {
    const perStatement = Math.max(1, Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / Object.keys(group[0] ?? {}).length)));
    for (const slice of slices(group, perStatement)) await trx(table).insert(slice);
  }
}
