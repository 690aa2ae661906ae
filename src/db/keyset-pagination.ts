import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { toDate } from './connection.js';
import { ValidationError } from '../shared/errors.js';

/**
 * Keyset pagination for every admin list (docs/admin-api.md, Pagination): `limit`, an opaque `cursor` and a `sort`
 * such as `-createdAt`, answered as `{ data, nextCursor }`. Rows come in a stable order: the sort column, then the row
 * id in the same direction, so rows added or removed between pages neither repeat nor go missing.
 *
 * A cursor is base64url JSON of the last row's keyset (`value`: epoch milliseconds for times), the sort it belongs to
 * and a fingerprint of the filters. Reused with another sort or other filters, or not one of ours: 400
 * `invalid_cursor`. It is not signed: a forged one only moves the caller within its own site's list.
 */

/** How a sortable field is stored: `time` columns compare as instants, the others as numbers or strings. */
export type SortValueType = 'time' | 'number' | 'string';

export interface SortColumn {
  column: string;
  type: SortValueType;
}

/** A list's sortable fields (as the contract's sort enum names them, without `-`) and their columns. */
export type SortColumns<Field extends string> = Record<Field, SortColumn>;

/** Filter values as the handler received them; only their identity matters (the cursor's fingerprint). */
export type ListFilters = Readonly<Record<string, string | number | boolean | null | undefined | readonly (string | number)[]>>;

export interface ListQuery {
  limit?: number;
  cursor?: string;
  sort?: string;
}

export interface ListPage<Row> {
  rows: Row[];
  nextCursor: string | null;
}

interface Keyset {
  value: number | string;
  id: number;
}

interface CursorPayload extends Keyset {
  v: 1;
  sort: string;
  filters: string;
}

export const DEFAULT_LIMIT = 20;

function fingerprint(filters: ListFilters): string {
  const canonical = Object.keys(filters)
    .sort()
    .filter((key) => filters[key] !== undefined)
    .map((key) => [key, filters[key]]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 16);
}

export function encodeCursor(sort: string, filters: ListFilters, keyset: Keyset): string {
  const payload: CursorPayload = { v: 1, sort, filters: fingerprint(filters), value: keyset.value, id: keyset.id };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

function invalidCursor(message = 'The cursor is not one this API issued. Start again without a cursor.'): ValidationError {
  return new ValidationError(message, [], 'invalid_cursor');
}

export function decodeCursor(cursor: string, sort: string, type: SortValueType, filters: ListFilters): Keyset {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (typeof payload !== 'object' || payload === null) throw invalidCursor();
  const candidate = payload as Partial<CursorPayload>;
  const { value, id } = candidate;
  const valueMatches = type === 'string' ? typeof value === 'string' : typeof value === 'number' && Number.isFinite(value);
  if (candidate.v !== 1 || !valueMatches || typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw invalidCursor();
  if (candidate.sort !== sort || candidate.filters !== fingerprint(filters)) {
    throw invalidCursor('The cursor belongs to a listing with another sort or other filters. Repeat the request with the same sort and filters, or start again without a cursor.');
  }
  return { value: value as number | string, id };
}

/** `-createdAt` → field `createdAt`, descending. The contract's enum has already refused unknown fields. */
export function parseSort<Field extends string>(sort: string, columns: SortColumns<Field>): { field: Field; descending: boolean; column: SortColumn } {
  const descending = sort.startsWith('-');
  const field = (descending ? sort.slice(1) : sort) as Field;
  const column = columns[field];
  if (!Object.hasOwn(columns, field)) throw new Error(`the list has no sort field ${field}`);
  return { field, descending, column };
}

function sortValueOf(row: Record<string, unknown>, column: SortColumn): number | string {
  const raw = row[column.column.includes('.') ? (column.column.split('.').at(-1) ?? column.column) : column.column];
  if (column.type === 'time') {
    const date = toDate(raw);
    if (date === null) throw new Error(`the sort column ${column.column} is null`);
    return date.getTime();
  }
  if (column.type === 'number') return Number(raw);
  return String(raw);
}

/**
 * One page of `builder` (already filtered to the site and the filters) in the order `query.sort` names. The rows must
 * carry `id` (the table's row id, qualified by `idColumn` in joins) and the sort column.
 */
export async function listPage<Row extends object, Field extends string>(
  builder: Knex.QueryBuilder,
  query: ListQuery,
  options: { sorts: SortColumns<Field>; defaultSort: string; filters: ListFilters; idColumn?: string },
): Promise<ListPage<Row>> {
  const sort = query.sort ?? options.defaultSort;
  const limit = query.limit ?? DEFAULT_LIMIT;
  const { descending, column } = parseSort(sort, options.sorts);
  const idColumn = options.idColumn ?? 'id';
  const order = descending ? 'desc' : 'asc';
  const past = descending ? '<' : '>';
  if (query.cursor !== undefined) {
    const after = decodeCursor(query.cursor, sort, column.type, options.filters);
    const value = column.type === 'time' ? new Date(after.value) : after.value;
    builder.andWhere((position) => {
      position.where(column.column, past, value).orWhere((tie) => {
        tie.where(column.column, value).andWhere(idColumn, past, after.id);
      });
    });
  }
  const rows = (await builder
    .orderBy([
      { column: column.column, order },
      { column: idColumn, order },
    ])
    .limit(limit + 1)) as Row[];
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor(sort, options.filters, { value: sortValueOf(last as Record<string, unknown>, column), id: Number((last as { id?: unknown }).id) }) : null;
  return { rows: page, nextCursor };
}
