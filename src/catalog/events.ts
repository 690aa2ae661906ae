import type { Knex } from 'knex';
import { requireDate } from '../db/connection.js';
import { eventUrl } from '../member/events.js';
import { fetchPage, pageWindow, type Page, type PageArgs, type SortKey } from '../member/pagination.js';
import { CATALOGUE_LIMITS, type CatalogContext } from './context.js';
import { moneyFromColumns, type Money } from '../shared/money.js';

/**
 * Upcoming public events of a site: published, marked public, and not yet over (an event in progress is still
 * listed). What a visitor may see; never the online link (that is for registrants) nor who registered.
 */
export interface PublicEvent {
  id: number;
  slug: string;
  title: string;
  description: string | null;
  startAt: Date;
  endAt: Date;
  /** IANA time zone the event is announced in. */
  timezone: string;
  isOnline: boolean;
  /** Venue of an in-person event; null for online events. */
  venue: string | null;
  /** The event's page on this site: `{origin}/events/{slug}`. */
  url: string;
  /** Places offered; null when unlimited. */
  capacity: number | null;
  /** Places not yet taken by a live registration; null when unlimited. */
  spotsLeft: number | null;
  /** Null for free events. */
  price: Money | null;
}

/** Soonest start first, ties broken by id. */
const EVENT_ORDER: SortKey = [
  { column: 'events.starts_at', descending: false, time: true },
  { column: 'events.id', descending: false },
];

interface EventRow extends Record<string, unknown> {
  id: number | string;
  slug: string;
  title: string;
  description: string | null;
  starts_at: unknown;
  ends_at: unknown;
  timezone: string;
  format: string;
  location: string | null;
  capacity: number | string | null;
  price_amount: number | string | null;
  price_currency: string | null;
}

/** Published, public events of the site that have not ended at the request's instant. */
function upcomingPublicEvents(ctx: CatalogContext): Knex.QueryBuilder {
  return ctx.db('events').where('events.site_id', ctx.site.id).where('events.status', 'published').where('events.is_public', true).where('events.ends_at', '>', ctx.now);
}

/** Live registrations (not canceled) per event, one query. */
async function takenPlaces(ctx: CatalogContext, eventIds: readonly number[]): Promise<Map<number, number>> {
  if (eventIds.length === 0) return new Map();
  const rows = (await ctx
    .db('event_registrations')
    .whereIn('event_id', [...new Set(eventIds)])
    .whereNot('state', 'canceled')
    .groupBy('event_id')
    .select('event_id')
    .count({ total: '*' })) as Array<{ event_id: number | string; total: number | string }>;
  return new Map(rows.map((row) => [Number(row.event_id), Number(row.total)]));
}

/** One page of the upcoming public events, soonest first (default 10, at most 50). Throws ValidationError for bad window arguments. */
export async function listUpcomingPublicEvents(ctx: CatalogContext, args: PageArgs): Promise<Page<PublicEvent>> {
  const window = pageWindow(args, CATALOGUE_LIMITS, EVENT_ORDER);
  const page = await fetchPage<EventRow>(
    () =>
      upcomingPublicEvents(ctx).select(
        'events.id as id',
        'events.slug as slug',
        'events.title as title',
        'events.description as description',
        'events.starts_at as starts_at',
        'events.ends_at as ends_at',
        'events.timezone as timezone',
        'events.format as format',
        'events.location as location',
        'events.capacity as capacity',
        'events.price_amount as price_amount',
        'events.price_currency as price_currency',
      ),
    EVENT_ORDER,
    window,
  );
  const taken = await takenPlaces(
    ctx,
    page.nodes.map((row) => Number(row.id)),
  );
  return {
    ...page,
    nodes: page.nodes.map((row) => {
      const id = Number(row.id);
      const isOnline = row.format !== 'venue';
      const capacity = row.capacity === null ? null : Number(row.capacity);
      return {
        id,
        slug: row.slug,
        title: row.title,
        description: row.description,
        startAt: requireDate(row.starts_at),
        endAt: requireDate(row.ends_at),
        timezone: row.timezone,
        isOnline,
        venue: isOnline ? null : row.location,
        url: eventUrl(ctx.site.origin, row.slug),
        capacity,
        spotsLeft: capacity === null ? null : Math.max(0, capacity - (taken.get(id) ?? 0)),
        price: moneyFromColumns(row.price_amount, row.price_currency),
      };
    }),
  };
}

/** Number of upcoming public events (the same set the list pages through). */
export async function countUpcomingPublicEvents(ctx: CatalogContext): Promise<number> {
  const rows = (await upcomingPublicEvents(ctx).count({ total: '*' })) as Array<{ total: number | string }>;
  return Number(rows[0]?.total ?? 0);
}
