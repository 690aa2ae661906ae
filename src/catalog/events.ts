import type { Knex } from 'knex';
import { eventColumns, eventFromRow, eventPlace, eventsOfSite, eventUrl, liveRegistrationCounts, type EventData, type EventRow } from '../data/events.js';
import { fetchPage, pageWindow, type Page, type PageArgs, type SortKey, withNodes } from '../member/pagination.js';
import { CATALOGUE_LIMITS, type CatalogContext } from './context.js';
import type { Money } from '../shared/money.js';

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

/** Published, public events of the site that have not ended at the request's instant. */
function upcomingPublicEvents(ctx: CatalogContext): Knex.QueryBuilder {
  return eventsOfSite(ctx.db, ctx.site.id).where('events.status', 'published').where('events.is_public', true).where('events.ends_at', '>', ctx.now);
}

/** One page of the upcoming public events, soonest first (default 10, at most 50). Throws ValidationError for bad window arguments. */
export async function listUpcomingPublicEvents(ctx: CatalogContext, args: PageArgs): Promise<Page<PublicEvent>> {
  const window = pageWindow(args, CATALOGUE_LIMITS, EVENT_ORDER);
  const page = await fetchPage<EventRow & Record<string, unknown>>(() => upcomingPublicEvents(ctx).select(eventColumns()), EVENT_ORDER, window);
  const events = page.nodes.map(eventFromRow);
  const taken = await liveRegistrationCounts(
    ctx.db,
    events.map((event) => event.id),
  );
  return withNodes(page, events.map((event) => publicEvent(ctx, event, taken.get(event.id) ?? 0)));
}

/** What a visitor may see of an event, with the places `taken` by live registrations. */
function publicEvent(ctx: CatalogContext, event: EventData, taken: number): PublicEvent {
  const place = eventPlace(event);
  return {
    id: event.id,
    slug: event.slug,
    title: event.title,
    description: event.description,
    startAt: event.startsAt,
    endAt: event.endsAt,
    timezone: event.timezone,
    isOnline: place.isOnline,
    venue: place.venue,
    url: eventUrl(ctx.site.origin, event.slug),
    capacity: event.capacity,
    spotsLeft: event.capacity === null ? null : Math.max(0, event.capacity - taken),
    price: event.price,
  };
}

/** Number of upcoming public events (the same set the list pages through). */
export async function countUpcomingPublicEvents(ctx: CatalogContext): Promise<number> {
  const rows = (await upcomingPublicEvents(ctx).count({ total: '*' })) as Array<{ total: number | string }>;
  return Number(rows[0]?.total ?? 0);
}
