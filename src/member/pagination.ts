import type { Knex } from 'knex';
import { ValidationError } from '../shared/errors.js';

/** Relay-style window arguments, as GraphQL and the MCP tools receive them. */
export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface PageLimits {
  defaultSize: number;
  maxSize: number;
}

/** A sort key value: what a cursor stores (a time as epoch milliseconds, a string, or an id). */
export type KeyValue = string | number;

export interface PageWindow {
  /** first → from the start of the order; last → from its end. */
  direction: 'forward' | 'backward';
  size: number;
  after: KeyValue[] | null;
  before: KeyValue[] | null;
}

/** The ordering of a list: columns with their direction, ending with a unique column (the id) as tie-breaker. */
export type SortKey = ReadonlyArray<{ column: string; descending: boolean; time?: boolean }>;

export const DEFAULT_LIMITS: PageLimits = { defaultSize: 20, maxSize: 100 };
/** Spec, Limits: consultingMeetings and payments pages hold at most 50. */
export const SPEC_LIMITED: PageLimits = { defaultSize: 20, maxSize: 50 };

/** Cursors are opaque to clients: base64url of the sort key values of a row. */
export function encodeCursor(values: readonly KeyValue[]): string {
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, width: number, argument: string): KeyValue[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    values = null;
  }
  if (!Array.isArray(values) || values.length !== width || !values.every((value) => typeof value === 'string' || typeof value === 'number')) {
    throw new ValidationError(`${argument} is not a cursor from this list`, [{ pointer: `/${argument}`, message: 'not a cursor from this list' }]);
  }
  return values as KeyValue[];
}

function checkSize(value: number | null | undefined, argument: string): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isInteger(value) || value < 0) throw new ValidationError(`${argument} must be a non-negative integer`, [{ pointer: `/${argument}`, message: 'must be a non-negative integer' }]);
  return value;
}

/**
 * Validates the window arguments (Relay Cursor Connections spec): `first` and `last` together are refused, negative
 * sizes are refused, sizes above the maximum are clamped to it, and a cursor must hold values of this list's sort
 * key (a time is epoch milliseconds, the final id a positive integer, anything else a string), so a cursor taken
 * from another list is refused like a malformed one instead of reaching the database.
 */
export function pageWindow(args: PageArgs, limits: PageLimits, sort: SortKey): PageWindow {
  const first = checkSize(args.first, 'first');
  const last = checkSize(args.last, 'last');
  if (first !== null && last !== null) throw new ValidationError('give first or last, not both', [{ pointer: '/last', message: 'cannot be combined with first' }]);
  const after = args.after ? cursorFor(args.after, sort, 'after') : null;
  const before = args.before ? cursorFor(args.before, sort, 'before') : null;
  const direction = last !== null ? 'backward' : 'forward';
  const size = Math.min(first ?? last ?? limits.defaultSize, limits.maxSize);
  return { direction, size, after, before };
}

function cursorFor(cursor: string, sort: SortKey, argument: string): KeyValue[] {
  const values = decodeCursor(cursor, sort.length, argument);
  sort.forEach((key, index) => {
    const value = values[index];
    const isId = index === sort.length - 1;
    const fits = key.time || isId ? typeof value === 'number' && Number.isSafeInteger(value) && (!isId || value > 0) : typeof value === 'string';
    if (!fits) throw new ValidationError(`${argument} is not a cursor from this list`, [{ pointer: `/${argument}`, message: 'not a cursor from this list' }]);
  });
  return values;
}

function keyValueOf(value: unknown, time: boolean | undefined): KeyValue {
  if (time) {
    const date = value instanceof Date ? value : new Date(typeof value === 'string' && !/^\d+$/.test(value) ? value : Number(value));
    return date.getTime();
  }
  return typeof value === 'number' ? value : String(value);
}

export function sortValuesOf(row: Record<string, unknown>, sort: SortKey, alias: (column: string) => string = (column) => column.split('.').pop() ?? column): KeyValue[] {
  return sort.map(({ column, time }) => keyValueOf(row[alias(column)], time));
}

function bindValue(value: KeyValue, time: boolean | undefined): KeyValue | Date {
  return time ? new Date(Number(value)) : value;
}

/** Rows strictly after (`beyond` = 'after') or before the cursor position in the list's order: a keyset condition. */
function applyKeyset(query: Knex.QueryBuilder, sort: SortKey, values: KeyValue[], beyond: 'after' | 'before'): void {
  query.where((outer) => {
    sort.forEach((_, index) => {
      outer.orWhere((inner) => {
        for (let earlier = 0; earlier < index; earlier += 1) {
          const key = sort[earlier];
          const value = values[earlier];
          if (key && value !== undefined) inner.where(key.column, bindValue(value, key.time));
        }
        const key = sort[index];
        const value = values[index];
        if (!key || value === undefined) return;
        const forwardOp = key.descending ? '<' : '>';
        const op = beyond === 'after' ? forwardOp : forwardOp === '<' ? '>' : '<';
        inner.where(key.column, op, bindValue(value, key.time));
      });
    });
  });
}

export interface Page<T> {
  nodes: T[];
  cursors: string[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
}

/**
 * One page of a list in one query (plus one count): the keyset window in the list's order, fetched one row beyond
 * the page size to know whether more exist.
 */
export async function fetchPage<Row extends Record<string, unknown>>(
  base: () => Knex.QueryBuilder,
  sort: SortKey,
  window: PageWindow,
): Promise<Page<Row>> {
  const query = base().clone();
  if (window.after) applyKeyset(query, sort, window.after, 'after');
  if (window.before) applyKeyset(query, sort, window.before, 'before');
  const reverse = window.direction === 'backward';
  for (const { column, descending } of sort) query.orderBy(column, descending !== reverse ? 'desc' : 'asc');
  query.limit(window.size + 1);
  const [rows, countRows] = await Promise.all([query as Promise<Row[]>, base().clone().clearSelect().clearOrder().count({ total: '*' }) as Promise<Array<{ total: number | string }>>]);
  const hasMore = rows.length > window.size;
  const pageRows = rows.slice(0, window.size);
  if (reverse) pageRows.reverse();
  return {
    nodes: pageRows,
    cursors: pageRows.map((row) => encodeCursor(sortValuesOf(row, sort))),
    hasNextPage: reverse ? window.before !== null : hasMore,
    hasPreviousPage: reverse ? hasMore : window.after !== null,
    totalCount: Number(countRows[0]?.total ?? 0),
  };
}
