import type { Knex } from 'knex';
import { toDate } from '../db/connection.js';

/** A value the importer writes into a column. Dates are bound as epoch milliseconds (SQLite) or DATETIME (MySQL). */
export type ColumnValue = string | number | boolean | Date | null;
export type Row = Record<string, ColumnValue>;
export type UpsertOutcome = 'created' | 'updated' | 'unchanged';

export interface UpsertResult {
  outcome: UpsertOutcome;
  /** The row's `id`; null for tables keyed without one (join tables, site_appearance). */
  id: number | null;
}

const columnsByTable = new Map<string, Promise<ReadonlySet<string>>>();

/** The table's column names, read once per process (every database runs the same migrations). */
export function columnsOf(trx: Knex.Transaction, table: string): Promise<ReadonlySet<string>> {
  let columns = columnsByTable.get(table);
  if (!columns) {
    columns = trx(table)
      .columnInfo()
      .then((info) => new Set(Object.keys(info)));
    columnsByTable.set(table, columns);
    columns.catch(() => columnsByTable.delete(table));
  }
  return columns;
}

/**
 * Whether a stored column value already equals the value the importer would write. Stored values come back in the
 * driver's shape: times as Date (MySQL) or epoch milliseconds (SQLite), booleans as 0/1, big integers maybe as strings.
 */
export function sameValue(stored: unknown, desired: ColumnValue): boolean {
  if (desired === null || stored === null || stored === undefined) return desired === null && (stored === null || stored === undefined);
  if (desired instanceof Date) return toDate(stored)?.getTime() === desired.getTime();
  if (typeof desired === 'boolean') return (typeof stored === 'boolean' ? stored : Number(stored) !== 0) === desired;
  if (typeof desired === 'number') return Number(stored) === desired;
  return typeof stored === 'string' && stored === desired;
}

/**
 * Inserts or updates one row found by its external key, and writes nothing when the stored row already holds the
 * given values, so importing the same document twice changes nothing (not even updated_at).
 *
 * `key` is the match condition, or a list of them tried in order (e.g. external id, then slug): the first that
 * finds a row wins, and the columns of every key are written with `values`. An insert fills `created_at` and
 * `updated_at` when the table has them and `values` does not; an update stamps `updated_at` and increments `version`
 * where the table has them. Only the changed columns are written.
 */
export async function upsertRow(
  trx: Knex.Transaction,
  table: string,
  key: Row | readonly Row[],
  values: Row,
  now: Date = new Date(),
): Promise<UpsertResult> {
  const keys: readonly Row[] = Array.isArray(key) ? key : [key as Row];
  const columns = await columnsOf(trx, table);
  const hasId = columns.has('id');

  let existing: Record<string, unknown> | undefined;
  let matchedBy: Row | undefined;
  for (const candidate of keys) {
    existing = await trx(table).where(candidate).first();
    if (existing) {
      matchedBy = candidate;
      break;
    }
  }

  const desired = desiredRow(keys, values);
  if (!existing || !matchedBy) {
    // desired is this call's own new object: stamped in place.
    const [id] = await trx(table).insert(stampInsert(desired, columns, now));
    return { outcome: 'created', id: hasId ? Number(id) : null };
  }
  const id = hasId ? Number(existing.id) : null;
  return { outcome: await updateChanged(trx, table, columns, existing, desired, id !== null ? { id } : matchedBy, now), id };
}

/** The row that keys tried in order and values describe: every key's columns (the first key's winning), then the values. */
export function desiredRow(keys: readonly Row[], values: Row): Row {
  const desired: Row = {};
  for (let at = keys.length - 1; at >= 0; at -= 1) Object.assign(desired, keys[at]);
  return Object.assign(desired, values);
}

/** The row to insert, `created_at` and `updated_at` filled in place where the table has them and the row does not: for a row the caller has just built and owns. */
export function stampInsert(row: Row, columns: ReadonlySet<string>, now: Date): Row {
  if (columns.has('created_at') && !('created_at' in row)) row.created_at = now;
  if (columns.has('updated_at') && !('updated_at' in row)) row.updated_at = now;
  return row;
}

/**
 * Writes the columns of `desired` whose stored value differs, stamping `updated_at` and incrementing `version` where
 * the table has them and `desired` does not; writes nothing when none differs.
 */
export async function updateChanged(trx: Knex.Transaction, table: string, columns: ReadonlySet<string>, stored: Record<string, unknown>, desired: Row, where: Row, now: Date): Promise<'updated' | 'unchanged'> {
  const changes: Record<string, ColumnValue | Knex.Raw> = {};
  for (const [column, value] of Object.entries(desired)) if (!sameValue(stored[column], value)) changes[column] = value;
  if (Object.keys(changes).length === 0) return 'unchanged';
  if (columns.has('updated_at') && !('updated_at' in desired)) changes.updated_at = now;
  if (columns.has('version') && !('version' in desired)) changes.version = trx.raw('?? + 1', ['version']);
  await trx(table).where(where).update(changes);
  return 'updated';
}
