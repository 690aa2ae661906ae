import type { Knex } from 'knex';
import { toDate } from './connection.js';

/**
 * The keyset pagination core under both list interfaces: the admin API's `limit`/`cursor`/`sort`
 * (src/db/keyset-pagination.ts) and the member API's Relay `first`/`after`/`last`/`before` (src/member/pagination.ts).
 * A list is ordered by its keys, the last one unique (the row id), so a position is the key values of one row: rows
 * added or removed between pages neither repeat nor go missing. A cursor carries such a position, as base64url JSON
 * whose shape each interface chooses; the core encodes, decodes and checks the values, filters a query to the rows
 * beyond a position, and trims the one row fetched past a page.
 */

/** How a key is stored: `time` compares as an instant (a cursor holds epoch milliseconds), `id` is the row id. */
export type KeyType = 'time' | 'number' | 'string' | 'id';

export interface KeyColumn {
  /** The column as the query names it (qualified in joins); the row carries it under its last segment. */
  column: string;
  descending: boolean;
  type: KeyType;
}

/** A value of one key in a cursor. */
export type KeyValue = string | number;

export function encodeCursor(payload: unknown): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The payload of a cursor, or undefined when it is not base64url JSON at all. */
export function decodeCursor(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Whether a value from a cursor can be a value of a key of this type (so a foreign cursor never reaches the database). */
export function fitsKey(value: unknown, type: KeyType): value is KeyValue {
  switch (type) {
    case 'time':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string':
      return typeof value === 'string';
    case 'id':
      return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
  }
}

function rowKey(column: string): string {
  return column.split('.').at(-1) ?? column;
}

/** The key values of a fetched row: the position a cursor to it holds. */
export function keyValuesOf(row: Readonly<Record<string, unknown>>, keys: readonly KeyColumn[]): KeyValue[] {
  return keys.map(({ column, type }) => {
    const raw = row[rowKey(column)];
    if (type === 'time') {
      const date = toDate(raw);
      if (date === null) throw new Error(`the key column ${column} is null`);
      return date.getTime();
    }
    if (type === 'number' || type === 'id') return Number(raw);
    return String(raw);
  });
}

function bound(value: KeyValue, type: KeyType): KeyValue | Date {
  return type === 'time' ? new Date(Number(value)) : value;
}

/**
 * Keeps the rows strictly after (or before) a position in the list's order: for keys k1..kn, the rows where
 * k1..k(i-1) equal the position's and ki is past it, for some i.
 */
export function whereBeyond(query: Knex.QueryBuilder, keys: readonly KeyColumn[], position: readonly KeyValue[], side: 'after' | 'before'): void {
  // Implied by the alternatives below, but stated on its own: a planner turns it into the start of an index range on
  // the first key (SQLite and MySQL do not derive one from the OR), so a page far into the list does not read the
  // rows before it.
  const [first] = keys;
  const firstValue = position[0];
  if (first && firstValue !== undefined) {
    const forward = first.descending ? '<=' : '>=';
    query.where(first.column, side === 'after' ? forward : forward === '<=' ? '>=' : '<=', bound(firstValue, first.type));
  }
  query.where((outer) => {
    keys.forEach((key, index) => {
      outer.orWhere((inner) => {
        for (let earlier = 0; earlier < index; earlier += 1) {
          const equal = keys[earlier];
          const value = position[earlier];
          if (equal && value !== undefined) inner.where(equal.column, bound(value, equal.type));
        }
        const value = position[index];
        if (value === undefined) return;
        const forward = key.descending ? '<' : '>';
        inner.where(key.column, side === 'after' ? forward : forward === '<' ? '>' : '<', bound(value, key.type));
      });
    });
  });
}

/** Orders a query by the keys, or against them (`reversed`) to fetch the rows nearest a position from its far side. */
export function orderByKeys(query: Knex.QueryBuilder, keys: readonly KeyColumn[], reversed = false): void {
  query.orderBy(keys.map(({ column, descending }) => ({ column, order: descending !== reversed ? 'desc' : 'asc' })));
}

/**
 * A page from rows fetched one beyond its size: `hasMore` says whether that row came. Rows fetched against the
 * order (`reversed`) come back in the list's order.
 */
export function trimPage<Row>(rows: readonly Row[], size: number, reversed = false): { rows: Row[]; hasMore: boolean } {
  const page = rows.slice(0, size);
  if (reversed) page.reverse();
  return { rows: page, hasMore: rows.length > size };
}
