/**
 * The product's exact SQL, captured from the product itself: each floor runs these texts and no others, so a floor
 * can never be cheaper for running a different statement, and follows every change to the product's statements.
 *
 * The capture sends a few requests to a product server (the real application, in the capturing process, over the
 * same database) while listening to knex's `query` events, and names each statement of a request by its place. A
 * request that issues more or fewer statements than the floor knows stops the capture with the list it saw.
 */
import type { Knex } from 'knex';
import { findSiteByOrigin } from '../../../src/sites/sites.js';

/** What each captured statement is to a floor (the product's order within one request). */
export const ROLES = {
  site: ['site'],
  userinfo: ['userinfo.token'],
  firstRefresh: ['refresh.pair', 'refresh.begin', 'refresh.lock', 'refresh.insert', 'refresh.update-first', 'refresh.commit'],
  refreshAgain: ['refresh.pair', 'refresh.begin', 'refresh.lock', 'refresh.insert', 'refresh.update', 'refresh.commit'],
  syllabus: ['syllabus.token', 'syllabus.enrollments', 'syllabus.sections'],
} as const;

export type Role = (typeof ROLES)[keyof typeof ROLES][number];

/** The floors' statements: the site the product serves and each role's SQL text. */
export interface StatementBook {
  origin: string;
  sql: Partial<Record<Role, string>>;
}

/** The SQL of a role, checked to bind exactly `values` (a list of another length is a statement the product never issued). */
export function statementOf(book: StatementBook, role: Role, values: readonly unknown[]): string {
  const sql = book.sql[role];
  if (sql === undefined) throw new Error(`the product was not seen issuing a ${role} statement`);
  const placeholders = sql.split('?').length - 1;
  if (placeholders !== values.length) throw new Error(`the product's ${role} statement binds ${placeholders} values, the floor has ${values.length}`);
  return sql;
}

/** One product request as the capture sends it. */
export interface ProductRequest {
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** The statements of one request, named by `roles`. */
async function statementsOfRequest(db: Knex, send: (request: ProductRequest) => Promise<number>, request: ProductRequest, roles: readonly Role[], book: StatementBook): Promise<void> {
  const seen: string[] = [];
  const onQuery = (query: { sql: string }) => seen.push(query.sql);
  db.on('query', onQuery);
  let status: number;
  try {
    status = await send(request);
  } finally {
    db.off('query', onQuery);
  }
  if (status !== 200) throw new Error(`capturing the product's statements: ${request.path} answered ${status}`);
  // A site read is the cache's (every 5 s), not the request's: the floors read the site by the same text when theirs expires.
  const own = seen.filter((sql) => sql !== book.sql.site);
  if (own.length !== roles.length) throw new Error(`the product issues ${own.length} statements for ${request.path}, the floor knows ${roles.length} (${roles.join(', ')}):\n${own.join('\n')}`);
  roles.forEach((role, index) => {
    const sql = own[index] ?? '';
    const known = book.sql[role];
    if (known !== undefined && known !== sql) throw new Error(`the product's ${role} statement differs between two requests:\n${known}\n${sql}`);
    book.sql[role] = sql;
  });
}

/** The requests the capture sends: a userinfo token, a fresh refresh token, and a syllabus token (all of the site at `origin`). */
export interface CaptureRequests {
  userinfo: ProductRequest;
  /** Sent twice: the first refresh of a pair, then the same refresh token again (the lost-response retry the bench repeats). */
  refresh: ProductRequest;
  syllabus: ProductRequest;
}

/**
 * Captures the product's statements of every floor. `send` delivers a request to the product (whose queries `db`
 * sees) and answers its status. Each path is asked once first, unrecorded: the first use of a token marks it used.
 */
export async function captureStatements(db: Knex, origin: string, requests: CaptureRequests, send: (request: ProductRequest) => Promise<number>): Promise<StatementBook> {
  const book: StatementBook = { origin, sql: {} };
  const sites: string[] = [];
  const onQuery = (query: { sql: string }) => sites.push(query.sql);
  db.on('query', onQuery);
  try {
    await findSiteByOrigin(db, origin);
  } finally {
    db.off('query', onQuery);
  }
  if (sites.length !== 1) throw new Error(`the product reads a site in ${sites.length} statements:\n${sites.join('\n')}`);
  book.sql.site = sites[0];
  await send(requests.userinfo);
  await statementsOfRequest(db, send, requests.userinfo, ROLES.userinfo, book);
  await statementsOfRequest(db, send, requests.refresh, ROLES.firstRefresh, book);
  await statementsOfRequest(db, send, requests.refresh, ROLES.refreshAgain, book);
  await send(requests.syllabus);
  await statementsOfRequest(db, send, requests.syllabus, ROLES.syllabus, book);
  return book;
}
