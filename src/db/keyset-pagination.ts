import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { ValidationError } from '../shared/errors.js';
import { decodeCursor, encodeCursor, fitsKey, keyValuesOf, orderByKeys, trimPage, whereBeyond, type KeyColumn } from './keyset.js';

/**
 * Keyset pagination for every admin list (docs/admin-api.md, Pagination): `limit`, an opaque `cursor` and a `sort`
 * such as `-createdAt`, answered as `{ data, nextCursor }`. Rows come in a stable order: the sort column, then the row
 * id in the same direction (the keyset core, src/db/keyset.ts).
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

interface CursorPayload {
  v: 1;
  sort: string;
  filters: string;
  value: number | string;
  id: number;
}

export const DEFAULT_LIMIT = 20;

function fingerprint(filters: ListFilters): string {
  const canonical = Object.keys(filters)
    .sort()
    .filter((key) => filters[key] !== undefined)
    .map((key) => [key, filters[key]]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 16);
}

function invalidCursor(message = 'The cursor is not one this API issued. Start again without a cursor.'): ValidationError {
  return new ValidationError(message, [], 'invalid_cursor');
}

/** The position a cursor holds: [sort value, id]. */
function positionOf(cursor: string, sort: string, keys: readonly KeyColumn[], filters: ListFilters): [number | string, number] {
  const payload = decodeCursor(cursor);
  if (typeof payload !== 'object' || payload === null) throw invalidCursor();
  const candidate = payload as Partial<CursorPayload>;
  const [sortKey, idKey] = keys;
  if (candidate.v !== 1 || !sortKey || !idKey || !fitsKey(candidate.value, sortKey.type) || !fitsKey(candidate.id, idKey.type)) throw invalidCursor();
  if (candidate.sort !== sort || candidate.filters !== fingerprint(filters)) {
    throw invalidCursor('The cursor belongs to a listing with another sort or other filters. Repeat the request with the same sort and filters, or start again without a cursor.');
  }
  return [candidate.value, candidate.id];
}

/** `-createdAt` → field `createdAt`, descending. The contract's enum has already refused unknown fields. */
export function parseSort<Field extends string>(sort: string, columns: SortColumns<Field>): { field: Field; descending: boolean; column: SortColumn } {
  const descending = sort.startsWith('-');
  const field = (descending ? sort.slice(1) : sort) as Field;
  const column = columns[field];
  if (!Object.hasOwn(columns, field)) throw new Error(`the list has no sort field ${field}`);
  return { field, descending, column };
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
  const keys: KeyColumn[] = [
    { column: column.column, descending, type: column.type },
    { column: options.idColumn ?? 'id', descending, type: 'id' },
  ];
  if (query.cursor !== undefined) whereBeyond(builder, keys, positionOf(query.cursor, sort, keys, options.filters), 'after');
  orderByKeys(builder, keys);
  const page = trimPage((await builder.limit(limit + 1)) as Row[], limit);
  const last = page.rows.at(-1);
  if (!page.hasMore || last === undefined) return { rows: page.rows, nextCursor: null };
  const [value = '', id = 0] = keyValuesOf(last as Record<string, unknown>, keys);
  const payload: CursorPayload = { v: 1, sort, filters: fingerprint(options.filters), value, id: Number(id) };
  return { rows: page.rows, nextCursor: encodeCursor(payload) };
}
