import type { Knex } from 'knex';
import { isMysql, requireDate, type Database } from '../db/connection.js';
import { decodeCursor, encodeCursor } from '../db/keyset.js';
import { firstDayOf, utcDay } from '../deprecations/days.js';
import { ValidationError } from '../shared/errors.js';
import type { ClientUse, ElementUse, UsageApi } from './export-format.js';

/**
 * Who used which element of the contracts (docs/usage.md, "Reading the usage"): per element (a member API schema
 * coordinate, an admin API operationId, an MCP tool), the clients that used it over the last `days` UTC days and how
 * often, most used first. Read from `api_usage` over a range of its keys (the site, then the days), grouped in the
 * database; anonymous calls (client_ref 0) are one "client" with a null client_id. Rows of a client deleted since
 * are left out (the prune drops them later).
 */

export interface UsageFilter {
  api?: UsageApi;
  /** One element, exactly (case-sensitive). */
  element?: string;
  /** Elements starting with this text (case-sensitive), such as `Course.`. */
  prefix?: string;
  /** One client, by its oauth_clients.id; 0 for anonymous calls. */
  clientRef?: number;
}

export interface UsageWindow {
  days: number;
  /** First and last UTC day counted (YYYY-MM-DD), both included. */
  from: string;
  to: string;
}

/** An element with its total uses in the window and the clients behind them. */
export interface ElementUsage extends ElementUse {
  uses: number;
}

export interface UsagePage {
  elements: ElementUsage[];
  nextCursor: string | null;
}

/** The window of `days` UTC days that ends today. */
export function usageWindow(days: number, now: Date = new Date()): UsageWindow {
  return { days, from: firstDayOf(days, now), to: utcDay(now) };
}

/**
 * Why `days` cannot be read, or null: counts older than the retention are pruned, so a longer window would answer
 * less than it says.
 */
export function usageDaysProblem(days: number, retentionDays: number): string | null {
  if (!Number.isInteger(days) || days < 1) return `days must be a whole number of at least 1, got ${days}`;
  if (days > retentionDays) return `days ${days} reaches beyond the ${retentionDays} days of usage this instance keeps (SCHOOLGATE_USAGE_RETENTION_DAYS); ask for ${retentionDays} or fewer`;
  return null;
}

const ESCAPE = '!';

function likePrefix(prefix: string): string {
  return `${prefix.replace(/[!%_]/g, (character) => `${ESCAPE}${character}`)}%`;
}

/**
 * The rows of the site and window that match the filter. MySQL's collation compares text without case, so the exact
 * and prefix filters also compare the bytes there (the plain comparison keeps the index range).
 */
function filteredRows(db: Database, siteId: number, window: UsageWindow, filter: UsageFilter): Knex.QueryBuilder {
  const query = db('api_usage as u')
    .leftJoin('oauth_clients as c', 'c.id', 'u.client_ref')
    .where('u.site_id', siteId)
    .andWhere('u.day', '>=', window.from)
    .andWhere((known) => known.where('u.client_ref', 0).orWhereNotNull('c.id'));
  const mysql = isMysql(db);
  if (filter.api !== undefined) query.andWhere('u.api', filter.api);
  if (filter.element !== undefined) {
    query.andWhere('u.element', filter.element);
    if (mysql) query.andWhereRaw('BINARY ?? = ?', ['u.element', filter.element]);
  }
  if (filter.prefix !== undefined && filter.prefix !== '') {
    const length = [...filter.prefix].length;
    query.andWhereRaw(`?? LIKE ? ESCAPE '${ESCAPE}'`, ['u.element', likePrefix(filter.prefix)]);
    if (mysql) query.andWhereRaw('BINARY LEFT(??, ?) = ?', ['u.element', length, filter.prefix]);
    else query.andWhereRaw('substr(??, 1, ?) = ?', ['u.element', length, filter.prefix]);
  }
  if (filter.clientRef !== undefined) query.andWhere('u.client_ref', filter.clientRef);
  return query;
}

interface ClientRow {
  api: string;
  element: string;
  client_ref: number | string;
  client_id: string | null;
  client_name: string | null;
  uses: number | string;
  last_used_at: unknown;
}

function apiOf(value: string): UsageApi {
  if (value === 'graphql' || value === 'admin' || value === 'mcp') return value;
  throw new Error(`api_usage holds an unknown api ${value}`);
}

/** Per element and client, most used first (then by client_id, anonymous last). */
function clientRows(db: Database, siteId: number, window: UsageWindow, filter: UsageFilter): Knex.QueryBuilder {
  return filteredRows(db, siteId, window, filter)
    .groupBy('u.api', 'u.element', 'u.client_ref', 'c.client_id', 'c.name')
    .select('u.api', 'u.element', 'u.client_ref', 'c.client_id', 'c.name as client_name')
    .sum({ uses: 'u.uses' })
    .max({ last_used_at: 'u.last_used_at' });
}

function clientUseOf(row: ClientRow): ClientUse {
  const anonymous = Number(row.client_ref) === 0;
  return { clientId: anonymous ? null : row.client_id, clientName: anonymous ? null : row.client_name, uses: Number(row.uses), lastUsedAt: requireDate(row.last_used_at).toISOString() };
}

const keyOf = (api: string, element: string) => `${api} ${element}`;

function byUse(a: ElementUsage, b: ElementUsage): number {
  return b.uses - a.uses || a.api.localeCompare(b.api) || a.element.localeCompare(b.element);
}

function compareClients(a: ClientUse, b: ClientUse): number {
  if (a.uses !== b.uses) return b.uses - a.uses;
  if (a.clientId === null) return 1;
  if (b.clientId === null) return -1;
  return a.clientId.localeCompare(b.clientId);
}

/** Groups per-client rows into elements; each element's clients most used first. */
function groupElements(rows: readonly ClientRow[]): Map<string, ElementUsage> {
  const elements = new Map<string, ElementUsage>();
  for (const row of rows) {
    const key = keyOf(row.api, row.element);
    let entry = elements.get(key);
    if (!entry) {
      entry = { api: apiOf(row.api), element: row.element, uses: 0, clients: [] };
      elements.set(key, entry);
    }
    const client = clientUseOf(row);
    entry.uses += client.uses;
    entry.clients.push(client);
  }
  for (const entry of elements.values()) entry.clients.sort(compareClients);
  return elements;
}

/** Every element used in the window that matches the filter, with its clients: one grouped statement. */
export async function elementUsage(db: Database, siteId: number, window: UsageWindow, filter: UsageFilter = {}): Promise<ElementUsage[]> {
  const rows = (await clientRows(db, siteId, window, filter)) as ClientRow[];
  return [...groupElements(rows).values()].sort(byUse);
}

/**
 * The given elements' uses in the window, with their clients (the deprecation report asks for the deprecated ones):
 * one grouped statement over the (site, api, element, day) index. Elements nobody used are left out.
 */
export async function usageOfElements(db: Database, siteId: number, window: UsageWindow, elements: ReadonlyArray<{ api: UsageApi; element: string }>): Promise<ElementUsage[]> {
  if (elements.length === 0) return [];
  const rows = (await clientRows(db, siteId, window, {}).andWhere((any) => {
    for (const { api, element } of elements) any.orWhere((one) => one.where('u.api', api).andWhere('u.element', element));
  })) as ClientRow[];
  return [...groupElements(rows).values()].sort(byUse);
}

interface CursorPayload {
  v: 1;
  /** The request the cursor belongs to: the window's length and the filter. */
  of: string;
  uses: number;
  api: string;
  element: string;
}

function requestOf(window: UsageWindow, filter: UsageFilter): string {
  return JSON.stringify([window.days, filter.api ?? null, filter.element ?? null, filter.prefix ?? null, filter.clientRef ?? null]);
}

function invalidCursor(message = 'The cursor is not one this API issued. Start again without a cursor.'): ValidationError {
  return new ValidationError(message, [], 'invalid_cursor');
}

function positionOf(cursor: string, request: string): CursorPayload {
  const payload = decodeCursor(cursor);
  if (typeof payload !== 'object' || payload === null) throw invalidCursor();
  const candidate = payload as Partial<CursorPayload>;
  if (candidate.v !== 1 || typeof candidate.of !== 'string' || !Number.isSafeInteger(candidate.uses) || typeof candidate.api !== 'string' || typeof candidate.element !== 'string') throw invalidCursor();
  if (candidate.of !== request) throw invalidCursor('The cursor belongs to a listing with other days or filters. Repeat the request with the same parameters, or start again without a cursor.');
  return candidate as CursorPayload;
}

interface TotalRow {
  api: string;
  element: string;
  uses: number | string;
}

/**
 * One page of elements, most used first (then by API and element), each with its clients. The position after a page is
 * the last element's (uses, api, element), so a page follows on from where the previous one stopped; counts that grow
 * between two pages may move an element across that position (usage is a moving figure, not a snapshot).
 * Two statements: the page of element totals, then the clients of those elements.
 */
export async function elementUsagePage(db: Database, siteId: number, window: UsageWindow, filter: UsageFilter, page: { limit: number; cursor?: string }): Promise<UsagePage> {
  const request = requestOf(window, filter);
  const totals = filteredRows(db, siteId, window, filter).groupBy('u.api', 'u.element').select('u.api', 'u.element').sum({ uses: 'u.uses' });
  if (page.cursor !== undefined) {
    const after = positionOf(page.cursor, request);
    totals.havingRaw('SUM(??) < ? OR (SUM(??) = ? AND (?? > ? OR (?? = ? AND ?? > ?)))', ['u.uses', after.uses, 'u.uses', after.uses, 'u.api', after.api, 'u.api', after.api, 'u.element', after.element]);
  }
  totals.orderBy([{ column: 'uses', order: 'desc' }, { column: 'u.api' }, { column: 'u.element' }]).limit(page.limit + 1);
  const found = (await totals) as TotalRow[];
  const pageRows = found.slice(0, page.limit);
  if (pageRows.length === 0) return { elements: [], nextCursor: null };
  const clients = clientRows(db, siteId, window, filter).andWhere((any) => {
    for (const row of pageRows) any.orWhere((one) => one.where('u.api', row.api).andWhere('u.element', row.element));
  });
  const grouped = groupElements((await clients) as ClientRow[]);
  const elements = pageRows.map((row) => grouped.get(keyOf(row.api, row.element)) ?? { api: apiOf(row.api), element: row.element, uses: Number(row.uses), clients: [] });
  const last = pageRows.at(-1);
  if (found.length <= page.limit || last === undefined) return { elements, nextCursor: null };
  const payload: CursorPayload = { v: 1, of: request, uses: Number(last.uses), api: last.api, element: last.element };
  return { elements, nextCursor: encodeCursor(payload) };
}
