import { eventRegistrationColumns, eventRegistrationFromRow, type EventRegistrationRow } from '../data/event-registrations.js';
import { renamedBack } from '../data/columns.js';
import { eventColumns, eventFromRow, eventPlace, eventUrl, type EventRow } from '../data/events.js';
import type { MemberContext } from './context.js';
import { DEFAULT_LIMITS, fetchPage, pageWindow, type Page, type PageArgs, type SortKey, withNodes } from './pagination.js';

/** State of a registration, in the API's vocabulary (stored: registered | attended | no_show | canceled). */
export type EventRegistrationState = 'REGISTERED' | 'CHECKED_IN' | 'CANCELED';

/** An event as seen from one of the viewer's registrations. */
export interface EventRecord {
  id: number;
  slug: string;
  title: string;
  description: string | null;
  /** Events have no cover image in the data model: always null today. */
  coverImageUrl: string | null;
  startAt: Date;
  endAt: Date | null;
  /** IANA time zone the event is announced in. */
  timezone: string;
  isOnline: boolean;
  /** Venue of an in-person event; null for online events. */
  venue: string | null;
  /** The event's page on this site: `{origin}/events/{slug}`. */
  url: string;
}

/**
 * The viewer's registration for an event here (spec: viewer `eventRegistrations`): an entitlement, not an order, so
 * it carries no order number, coupon, refund, invoice or price.
 */
export interface EventRegistrationRecord {
  id: number;
  state: EventRegistrationState;
  /** Ticket type name; the data model has a single ticket type per event, so always null today. */
  ticketName: string | null;
  /** Places held; one registration is one attendee. */
  seats: number;
  registeredAt: Date;
  canceledAt: Date | null;
  event: EventRecord;
}

/** A registration row with its event's columns beside it; the event's own id and bookkeeping columns renamed. */
type RegistrationRow = EventRegistrationRow & Record<string, unknown>;

const EVENT_RENAMES = { id: 'event_id', version: 'event_version', created_at: 'event_created_at', updated_at: 'event_updated_at' } as const;

/** Schema: "Ordered by event start, newest first", ties broken by the registration id. */
const EVENT_REGISTRATIONS_ORDER: SortKey = [
  { column: 'events.starts_at', descending: true, time: true },
  { column: 'event_registrations.id', descending: true },
];

/** attended → CHECKED_IN; a no-show still held a registration, so it stays REGISTERED. */
export function registrationState(stored: string): EventRegistrationState {
  if (stored === 'canceled') return 'CANCELED';
  if (stored === 'attended') return 'CHECKED_IN';
  return 'REGISTERED';
}

/**
 * The viewer's event registrations at this site, canceled ones included (state CANCELED), by event start, newest
 * first. Each carries its event (same query). Two queries (page + count).
 */
export async function listEventRegistrations(ctx: MemberContext, args: PageArgs): Promise<Page<EventRegistrationRecord>> {
  const window = pageWindow(args, DEFAULT_LIMITS, EVENT_REGISTRATIONS_ORDER);
  const base = () =>
    ctx
      .db('event_registrations')
      .join('events', 'events.id', 'event_registrations.event_id')
      .where('event_registrations.user_id', ctx.userId)
      .where('event_registrations.site_id', ctx.site.id)
      .where('events.site_id', ctx.site.id)
      // The registration's event_id is the event's id, which the renamed event columns carry.
      .select(...eventRegistrationColumns('event_registrations', ['event_id']), ...eventColumns('events', EVENT_RENAMES));
  const page = await fetchPage<RegistrationRow & Record<string, unknown>>(base, EVENT_REGISTRATIONS_ORDER, window);
  return withNodes(
    page,
    page.nodes.map((row) => {
      const registration = eventRegistrationFromRow(row);
      const event = eventFromRow(renamedBack<EventRow>(row, EVENT_RENAMES));
      const place = eventPlace(event);
      return {
        id: registration.id,
        state: registrationState(registration.state),
        ticketName: null,
        seats: 1,
        registeredAt: registration.registeredAt,
        canceledAt: registration.canceledAt,
        event: {
          id: event.id,
          slug: event.slug,
          title: event.title,
          description: event.description,
          coverImageUrl: null,
          startAt: event.startsAt,
          endAt: event.endsAt,
          timezone: event.timezone,
          isOnline: place.isOnline,
          venue: place.venue,
          url: eventUrl(ctx.site.origin, event.slug),
        },
      };
    }),
  );
}
