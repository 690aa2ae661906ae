import type { Knex } from 'knex';
import { requireDate } from '../db/connection.js';
import type { Queryable } from '../db/queries.js';
import { moneyFromColumns, type Money } from '../shared/money.js';
import { selectColumns } from './columns.js';

/**
 * The `events` table: its row, its columns, the record every view starts from, and the site's events as a query.
 * The public catalogue, the member's registrations and the operators' events are filters and projections of these.
 */

export const EVENT_STATUSES = ['draft', 'published', 'canceled'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
export type EventFormat = 'online' | 'venue';

/** A row as the drivers answer it (MySQL may answer numbers as strings; times come as Date, string or number). */
export interface EventRow {
  id: number | string;
  site_id: number | string;
  slug: string;
  title: string;
  description: string | null;
  starts_at: unknown;
  ends_at: unknown;
  timezone: string;
  format: string;
  location: string | null;
  online_url: string | null;
  capacity: number | string | null;
  price_amount: number | string | null;
  price_currency: string | null;
  status: string;
  is_public: number | boolean;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

export const EVENT_COLUMNS = [
  'id',
  'site_id',
  'slug',
  'title',
  'description',
  'starts_at',
  'ends_at',
  'timezone',
  'format',
  'location',
  'online_url',
  'capacity',
  'price_amount',
  'price_currency',
  'status',
  'is_public',
  'version',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof EventRow>;

export interface EventData {
  id: number;
  slug: string;
  title: string;
  description: string | null;
  startsAt: Date;
  endsAt: Date;
  /** IANA time zone the event is announced in. */
  timezone: string;
  format: EventFormat;
  /** Venue of an in-person event. */
  location: string | null;
  /** Link of an online event: for registrants and operators only. */
  onlineUrl: string | null;
  /** Places offered; null when unlimited. */
  capacity: number | null;
  /** Null for free events. */
  price: Money | null;
  status: EventStatus;
  isPublic: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Every column of `events` (or of the alias `table`), for a select. */
export function eventColumns(table = 'events', renames: Partial<Record<(typeof EVENT_COLUMNS)[number], string>> = {}): string[] {
  return selectColumns(table, EVENT_COLUMNS, renames);
}

export function eventFromRow(row: EventRow): EventData {
  return {
    id: Number(row.id),
    slug: row.slug,
    title: row.title,
    description: row.description,
    startsAt: requireDate(row.starts_at),
    endsAt: requireDate(row.ends_at),
    timezone: row.timezone,
    format: row.format === 'venue' ? 'venue' : 'online',
    location: row.location,
    onlineUrl: row.online_url,
    capacity: row.capacity === null ? null : Number(row.capacity),
    price: moneyFromColumns(row.price_amount, row.price_currency),
    status: (EVENT_STATUSES as readonly string[]).includes(row.status) ? (row.status as EventStatus) : 'draft',
    isPublic: Boolean(row.is_public),
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

/** The events of one site: the base of every events query (tenant isolation starts here). */
export function eventsOfSite(db: Queryable, siteId: number): Knex.QueryBuilder {
  return db('events').where('events.site_id', siteId);
}

/** The event's page on the school site: `{origin}/events/{slug}`. */
export function eventUrl(origin: string, slug: string): string {
  return `${origin}/events/${encodeURIComponent(slug)}`;
}

/** Where a visitor goes: online events name no venue (their link is for registrants). */
export function eventPlace(event: Pick<EventData, 'format' | 'location'>): { isOnline: boolean; venue: string | null } {
  const isOnline = event.format !== 'venue';
  return { isOnline, venue: isOnline ? null : event.location };
}

/** Registrations that are not canceled (registered, attended, no_show), per event: one grouped query. */
export async function liveRegistrationCounts(db: Queryable, eventIds: readonly number[]): Promise<Map<number, number>> {
  if (eventIds.length === 0) return new Map();
  const rows = (await db('event_registrations')
    .whereIn('event_id', [...new Set(eventIds)])
    .whereNot('state', 'canceled')
    .groupBy('event_id')
    .select('event_id')
    .count({ total: '*' })) as Array<{ event_id: number | string; total: number | string }>;
  return new Map(rows.map((row) => [Number(row.event_id), Number(row.total)]));
}
