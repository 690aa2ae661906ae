import type { IncomingHttpHeaders } from 'node:http';
import type { StatementBook } from './statements.js';
import type { RawStore } from './store.js';

/** What a floor gets: the request's headers and body, the store and the product's statements. */
export interface FloorRequest {
  headers: IncomingHttpHeaders;
  body: string;
  store: RawStore;
  book: StatementBook;
}

/** A floor's answer: a status and a JSON body (sent with `Cache-Control: no-store`, as the product sends these). */
export interface FloorAnswer {
  status: number;
  json: string;
}

export type Floor = (request: FloorRequest) => Promise<FloorAnswer>;

export const answer = (status: number, body: unknown): FloorAnswer => ({ status, json: JSON.stringify(body) });

/** The bearer token of the Authorization header (RFC 6750 2.1), or ''. */
export const bearerOf = (headers: IncomingHttpHeaders): string => /^Bearer (\S+)$/i.exec(headers.authorization ?? '')?.[1] ?? '';

/** A time column as the driver hands it over: a Date (mysql2) or epoch milliseconds (SQLite). */
export function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  const text = String(value);
  return new Date(/^\d+$/.test(text) ? Number(text) : text);
}
