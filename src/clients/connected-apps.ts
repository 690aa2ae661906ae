import type { Knex } from 'knex';
import { requireDate, toDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { endGrant } from '../grants/end-grant.js';
import { NotFoundError } from '../shared/errors.js';
import type { Site } from '../sites/sites.js';
import { audienceOf } from './clients.js';
import type { Audience, Scope } from './scopes.js';

/**
 * Connected apps: the grants a member approved at a site, as the member's page (/connected-apps) and the admin API
 * and admin area show and end them. A grant is a token family (token_pairs.grant_id, one per completed
 * authorization, shared by every pair refreshed from the first). It is live while at least one of its pairs is not
 * revoked and its refresh token (or, without one, its access token) has not expired.
 */

/** Where an application came from, as people are told. */
export type ConnectedAppSource = 'vendor_platform' | 'metadata_document' | 'created_by_school' | 'service';

export interface ConnectedApp {
  grantId: string;
  /** The member who approved it. */
  userId: number;
  client: { ref: number; clientId: string; name: string; audience: Audience; kind: string };
  source: ConnectedAppSource;
  /** The scopes of the grant's newest live pair (a refresh may have narrowed them). */
  scopes: Scope[];
  /** When the member approved it: the grant's first pair. */
  approvedAt: Date;
  /** Its last presentation to an API or refresh, to the hour (src/oauth/tokens/last-used.ts); null if never used. */
  lastUsedAt: Date | null;
}

export function sourceOf(kind: string): ConnectedAppSource {
  switch (kind) {
    case 'vendor_platform':
      return 'vendor_platform';
    case 'metadata_document':
      return 'metadata_document';
    case 'service':
      return 'service';
    default:
      return 'created_by_school';
  }
}

interface GrantRow {
  id: number;
  grant_id: string;
  user_id: number;
  approved_at: unknown;
  last_used_at: unknown;
  first_used_at: unknown;
  client_ref: number;
  client_id: string;
  name: string;
  audience: string;
  kind: string;
}

const GRANT_SORTS: SortColumns<'approvedAt'> = { approvedAt: { column: 'g.approved_at', type: 'time' } };

/** A pair that still works: not revoked, and its refresh token (or its access token when it has none) not expired. */
function whereLive(builder: Knex.QueryBuilder, now: Date, table = 't'): Knex.QueryBuilder {
  return builder.whereNull(`${table}.revoked_at`).andWhere((alive) => {
    alive.where(`${table}.refresh_expires_at`, '>', now).orWhere((accessOnly) => accessOnly.whereNull(`${table}.refresh_expires_at`).andWhere(`${table}.access_expires_at`, '>', now));
  });
}

/**
 * The live grants of a site (with the member's user id, on `where`), one row per grant with its first pair's id (the
 * keyset tiebreak), approval and last use, joined with its client. Pairs without a person (service tokens) are not
 * connected apps.
 */
function grantsQuery(db: Database, siteId: number, where: { userId?: number; clientRef?: number }, now: Date): Knex.QueryBuilder {
  const live = whereLive(db('token_pairs as l').select('l.grant_id').where('l.site_id', siteId), now, 'l');
  if (where.userId !== undefined) live.andWhere('l.user_id', where.userId);
  if (where.clientRef !== undefined) live.andWhere('l.client_ref', where.clientRef);
  const grants = db('token_pairs as t')
    .where('t.site_id', siteId)
    .whereNotNull('t.user_id')
    .whereIn('t.grant_id', live)
    .groupBy('t.grant_id', 't.client_ref', 't.user_id')
    .select('t.grant_id', 't.client_ref', 't.user_id')
    .min({ id: 't.id', approved_at: 't.created_at' })
    .max({ last_used_at: 't.last_used_at', first_used_at: 't.first_used_at' });
  if (where.userId !== undefined) grants.andWhere('t.user_id', where.userId);
  if (where.clientRef !== undefined) grants.andWhere('t.client_ref', where.clientRef);
  return db
    .from(grants.as('g'))
    .join('oauth_clients as c', 'c.id', 'g.client_ref')
    .select('g.id', 'g.grant_id', 'g.user_id', 'g.approved_at', 'g.last_used_at', 'g.first_used_at', 'g.client_ref', 'c.client_id', 'c.name', 'c.audience', 'c.kind');
}

/** The newest live pair's scopes of each grant. */
async function scopesOf(db: Database, siteId: number, grantIds: readonly string[], now: Date): Promise<Map<string, Scope[]>> {
  if (grantIds.length === 0) return new Map();
  const rows: Array<{ grant_id: string; scope: string }> = await whereLive(db('token_pairs as t').where('t.site_id', siteId).whereIn('t.grant_id', [...grantIds]), now)
    .orderBy('t.id', 'asc')
    .select('t.grant_id', 't.scope');
  // Oldest first, so the newest pair of each grant is the one the map keeps.
  return new Map(rows.map((row) => [row.grant_id, row.scope.split(' ').filter(Boolean) as Scope[]]));
}

function latest(...dates: Array<Date | null>): Date | null {
  return dates.reduce<Date | null>((newest, date) => (date !== null && (newest === null || date > newest) ? date : newest), null);
}

async function toConnectedApps(db: Database, siteId: number, rows: readonly GrantRow[], now: Date): Promise<ConnectedApp[]> {
  const scopes = await scopesOf(
    db,
    siteId,
    rows.map((row) => row.grant_id),
    now,
  );
  return rows.map((row) => ({
    grantId: row.grant_id,
    userId: Number(row.user_id),
    client: { ref: Number(row.client_ref), clientId: row.client_id, name: row.name, audience: audienceOf(row.audience), kind: row.kind },
    source: sourceOf(row.kind),
    scopes: scopes.get(row.grant_id) ?? [],
    approvedAt: requireDate(row.approved_at),
    // Pairs used before last_used_at existed still have their first use.
    lastUsedAt: latest(toDate(row.last_used_at), toDate(row.first_used_at)),
  }));
}

export interface ConnectedAppsPage {
  apps: ConnectedApp[];
  nextCursor: string | null;
}

/** One keyset page of a member's live grants at the site, newest approval first unless `sort` says otherwise. */
export async function listMemberConnectedApps(db: Database, siteId: number, userId: number, query: ListQuery = {}, now = new Date()): Promise<ConnectedAppsPage> {
  const page = await listPage<GrantRow, 'approvedAt'>(grantsQuery(db, siteId, { userId }, now), query, { sorts: GRANT_SORTS, defaultSort: '-approvedAt', filters: { userId }, idColumn: 'g.id' });
  return { apps: await toConnectedApps(db, siteId, page.rows, now), nextCursor: page.nextCursor };
}

/** One keyset page of the live grants of one client of the site, every member's. */
export async function listClientGrants(db: Database, siteId: number, clientRef: number, query: ListQuery = {}, now = new Date()): Promise<ConnectedAppsPage> {
  const page = await listPage<GrantRow, 'approvedAt'>(grantsQuery(db, siteId, { clientRef }, now), query, { sorts: GRANT_SORTS, defaultSort: '-approvedAt', filters: { clientRef }, idColumn: 'g.id' });
  return { apps: await toConnectedApps(db, siteId, page.rows, now), nextCursor: page.nextCursor };
}

/** Which grant to end: always within one site, and within one member or one client when the caller says so. */
export interface GrantOwner {
  userId?: number;
  clientRef?: number;
}

/** A live grant of the site (and of the member or client named), or null: a grant of anyone else is not found. */
export async function findConnectedApp(db: Database, siteId: number, grantId: string, owner: GrantOwner, now = new Date()): Promise<ConnectedApp | null> {
  const rows = (await grantsQuery(db, siteId, owner, now).where('g.grant_id', grantId)) as GrantRow[];
  const [app] = await toConnectedApps(db, siteId, rows, now);
  return app ?? null;
}

/**
 * Disconnect: ends the whole grant, every token of the family (RFC 7009 2.1), and queues the client's back-channel
 * logout (endGrant). A grant that is not a live grant of this site and owner is a 404 and nothing changes.
 */
export async function disconnectApp(db: Database, site: Site, grantId: string, owner: GrantOwner, now = new Date()): Promise<ConnectedApp> {
  const app = await findConnectedApp(db, site.id, grantId, owner, now);
  if (!app) throw new NotFoundError('No connected application of this site has that grant id (it may have been disconnected already).', 'not_found');
  await endGrant(db, site, grantId, 'revoked', now);
  return app;
}
