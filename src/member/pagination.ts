import type { Knex } from 'knex';
import { decodeCursor as decodePayload, encodeCursor as encodePayload, fitsKey, keyValuesOf, orderByKeys, trimPage, whereBeyond, type KeyColumn, type KeyValue } from '../db/keyset.js';
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

export type { KeyValue } from '../db/keyset.js';

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
  return encodePayload(values);
}

function notACursor(argument: string): ValidationError {
  return new ValidationError(`${argument} is not a cursor from this list`, [{ pointer: `/${argument}`, message: 'not a cursor from this list' }]);
}

export function decodeCursor(cursor: string, width: number, argument: string): KeyValue[] {
  const values = decodePayload(cursor);
  if (!Array.isArray(values) || values.length !== width || !values.every((value) => typeof value === 'string' || typeof value === 'number')) throw notACursor(argument);
  return values as KeyValue[];
}

/** The core's keys of a list's sort: times as instants, the final key the row id, the others strings. */
function keyColumns(sort: SortKey): KeyColumn[] {
  return sort.map(({ column, descending, time }, index) => ({ column, descending, type: time ? 'time' : index === sort.length - 1 ? 'id' : 'string' }));
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
  const keys = keyColumns(sort);
  if (!keys.every((key, index) => fitsKey(values[index], key.type))) throw notACursor(argument);
  return values;
}

export function sortValuesOf(row: Record<string, unknown>, sort: SortKey): KeyValue[] {
  return keyValuesOf(row, keyColumns(sort));
}

/** Keeps the rows of `query` strictly between the window's cursors, in the list's order. */
export function withinWindow(query: Knex.QueryBuilder, sort: SortKey, window: PageWindow): void {
  const keys = keyColumns(sort);
  if (window.after) whereBeyond(query, keys, window.after, 'after');
  if (window.before) whereBeyond(query, keys, window.before, 'before');
}

/**
 * Relay's page flags from whether a row came beyond the page: fetching backward (`last`), more rows mean a previous
 * page, and a `before` cursor means rows follow; forward, the other way round.
 */
export function pageFlags(window: PageWindow, hasMore: boolean): { hasNextPage: boolean; hasPreviousPage: boolean } {
  const reverse = window.direction === 'backward';
  return { hasNextPage: reverse ? window.before !== null : hasMore, hasPreviousPage: reverse ? hasMore : window.after !== null };
}

/**
 * Asks `query` for the window's rows and one beyond (to know whether more exist), strictly between its cursors, in
 * the list's order, or against it for `last` (the rows nearest the far end come first; `trimPage` puts them back).
 */
export function windowed(query: Knex.QueryBuilder, sort: SortKey, window: PageWindow): Knex.QueryBuilder {
  withinWindow(query, sort, window);
  orderByKeys(query, keyColumns(sort), window.direction === 'backward');
  return query.limit(window.size + 1);
}

export interface Page<T> {
  nodes: T[];
  cursors: string[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
}

/**
 * The same page with its rows made into records. Spelled out rather than `{ ...page, nodes }`: on Node 20 every
 * property written after a spread costs about a microsecond (docs/performance.md, "Object spreads on Node 20").
 */
export function withNodes<Row, T>(page: Page<Row>, nodes: T[]): Page<T> {
  return { nodes, cursors: page.cursors, hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage, totalCount: page.totalCount };
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
  const keys = keyColumns(sort);
  const query = windowed(base().clone(), sort, window);
  const [rows, countRows] = await Promise.all([query as Promise<Row[]>, base().clone().clearSelect().clearOrder().count({ total: '*' }) as Promise<Array<{ total: number | string }>>]);
  const page = trimPage(rows, window.size, window.direction === 'backward');
  return {
    nodes: page.rows,
    cursors: page.rows.map((row) => encodeCursor(keyValuesOf(row, keys))),
    totalCount: Number(countRows[0]?.total ?? 0),
    ...pageFlags(window, page.hasMore),
  };
}
