import type { Knex } from 'knex';
import { MEETING_STATES, meetingColumns, meetingFromRow, type MeetingRow, type MeetingState } from '../data/meetings.js';
import { consultingServiceColumns, consultingServiceFromRow, consultingServicesOfSite, coursesOfServices, type ConsultingServiceRow } from '../data/consulting-services.js';
import { compareSlots, consultingSlotColumns, consultingSlotFromRow, currentSlots, weekdayName, type ConsultingSlotRow, type Weekday } from '../data/consulting-slots.js';
import { ValidationError } from '../shared/errors.js';
import type { MemberContext } from './context.js';
import { trimPage } from '../db/keyset.js';
import { DEFAULT_LIMITS, encodeCursor, fetchPage, pageFlags, pageWindow, withinWindow, type Page, type PageArgs, type PageWindow, type SortKey, withNodes } from './pagination.js';

export { MEETING_STATES, type MeetingState } from '../data/meetings.js';

export { WEEKDAYS, type Weekday } from '../data/consulting-slots.js';

/**
 * A consulting service offered against the courses delivered to the viewer (spec: Consulting). A catalogue entry:
 * not a purchase and not a booking, so it carries no order number, coupon, refund, invoice or price.
 */
export interface ConsultingServiceRecord {
  id: number;
  title: string;
  description: string | null;
  durationMinutes: number;
  /** Default seats per meeting. */
  capacity: number;
}

/** A minimal course reference (id, slug, title). */
export interface CourseRefRecord {
  id: number;
  slug: string;
  title: string;
}

/** One recurring weekly availability window of a service (spec: "`slots` is the recurring availability"). */
export interface ConsultingSlotRecord {
  id: number;
  serviceId: number;
  weekday: Weekday;
  /** `HH:MM`, 24-hour, in `timezone`. */
  startTime: string;
  durationMinutes: number;
  /** IANA time zone name. */
  timezone: string;
  capacity: number;
  validFrom: Date | null;
  validUntil: Date | null;
}

/**
 * A meeting reserved on a service, as the service's catalogue shows it: anyone's, with no room link, no attendee
 * identities and nothing that marks the viewer's (spec: Consulting, `meetings`).
 */
export interface ServiceMeetingRecord {
  id: number;
  serviceId: number;
  state: MeetingState;
  startAt: Date;
  endAt: Date;
  /** Seats taken (live seat rows): catalogue arithmetic. */
  attendeesCount: number;
  /** Seats the meeting offers. */
  capacity: number;
}

/** `MeetingFilter` (spec: `filter: { startedAfter, startedBefore, state }`): unix seconds, strict bounds. */
export interface MeetingFilter {
  startedAfter?: number | null;
  startedBefore?: number | null;
  /** null/undefined = every state; an empty list matches nothing. */
  state?: readonly MeetingState[] | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Cursor checks shared by the member lists.

// ---------------------------------------------------------------------------------------------------------------
// Services offered to the viewer.

/** Schema: consultingServices "Ordered by title", ties broken by id. */
const SERVICES_ORDER: SortKey = [
  { column: 'consulting_services.title', descending: false },
  { column: 'consulting_services.id', descending: false },
];

/** What the member API shows of a service: a catalogue entry, so no price and no status. */
function serviceFromRow(row: ConsultingServiceRow): ConsultingServiceRecord {
  const { id, title, description, durationMinutes, capacity } = consultingServiceFromRow(row);
  return { id, title, description, durationMinutes, capacity };
}

/**
 * Enrollments of the viewer at this site that still deliver their course (lifetime, no end, or ending after now):
 * the "courses delivered to the viewer" (spec: Consulting). `courseColumn` is the course id to match.
 */
function deliveredEnrollment(ctx: MemberContext, courseColumn: string): Knex.QueryBuilder {
  return ctx
    .db('enrollments as de')
    .whereRaw('de.course_id = ??', [courseColumn])
    .where('de.user_id', ctx.userId)
    .where('de.site_id', ctx.site.id)
    .where((active) => active.where('de.has_lifetime_access', true).orWhereNull('de.expires_at').orWhere('de.expires_at', '>', ctx.now))
    .select(ctx.db.raw('1'));
}

/**
 * The consulting services offered against the courses delivered to the viewer (published services linked to at least
 * one course the viewer holds a live enrollment for), by title. A catalogue, not a purchase list and not the
 * viewer's bookings. Two queries (page + count).
 */
export async function listConsultingServices(ctx: MemberContext, args: PageArgs): Promise<Page<ConsultingServiceRecord>> {
  const window = pageWindow(args, DEFAULT_LIMITS, SERVICES_ORDER);
  const base = () =>
    consultingServicesOfSite(ctx.db, ctx.site.id)
      .where('consulting_services.status', 'published')
      .whereExists(
        ctx
          .db('consulting_service_courses as csc')
          .whereRaw('csc.service_id = consulting_services.id')
          .whereExists(deliveredEnrollment(ctx, 'csc.course_id'))
          .select(ctx.db.raw('1')),
      )
      .select(consultingServiceColumns());
  const page = await fetchPage<ConsultingServiceRow & Record<string, unknown>>(base, SERVICES_ORDER, window);
  return withNodes(page, page.nodes.map(serviceFromRow));
}

/**
 * A consulting service of this site by id (any status), or null; batched. For pages that reach a service from
 * elsewhere, e.g. the service of one of the viewer's own meetings.
 */
export async function consultingServiceById(ctx: MemberContext, serviceId: number): Promise<ConsultingServiceRecord | null> {
  const loader = ctx.loader<number, ConsultingServiceRecord | null>('consulting-service', async (ids) => {
    const rows: ConsultingServiceRow[] = await consultingServicesOfSite(ctx.db, ctx.site.id).whereIn('consulting_services.id', [...ids]).select(consultingServiceColumns());
    const byId = new Map(rows.map((row) => [Number(row.id), serviceFromRow(row)]));
    return ids.map((id) => byId.get(id) ?? null);
  });
  return loader.load(serviceId);
}

/** The viewer's delivered courses a service is offered against, by title; batched across services (one query). */
export async function coursesOfService(ctx: MemberContext, serviceId: number): Promise<CourseRefRecord[]> {
  const loader = ctx.loader<number, CourseRefRecord[]>('consulting-service-courses', async (ids) => {
    const rows: Array<{ service_id: number; id: number; slug: string; title: string }> = await coursesOfServices(ctx.db, ctx.site.id, ids)
      .whereExists(deliveredEnrollment(ctx, 'c.id'))
      .orderBy([{ column: 'c.title' }, { column: 'c.id' }])
      .select('csc.service_id as service_id', 'c.id as id', 'c.slug as slug', 'c.title as title');
    const byService = new Map<number, CourseRefRecord[]>();
    for (const row of rows) {
      const list = byService.get(Number(row.service_id)) ?? [];
      list.push({ id: Number(row.id), slug: row.slug, title: row.title });
      byService.set(Number(row.service_id), list);
    }
    return ids.map((id) => byService.get(id) ?? []);
  });
  return loader.load(serviceId);
}

/**
 * The recurring weekly slots of a service (spec: "`slots` is the recurring availability"), Monday first, then start
 * time; slots whose validity ended are left out. Batched across services (one query).
 */
export async function slotsOfService(ctx: MemberContext, serviceId: number): Promise<ConsultingSlotRecord[]> {
  const loader = ctx.loader<number, ConsultingSlotRecord[]>('consulting-service-slots', async (ids) => {
    const query = ctx.db('consulting_slots as sl').join('consulting_services as cs', 'cs.id', 'sl.service_id').where('cs.site_id', ctx.site.id).whereIn('sl.service_id', [...ids]);
    const rows = (await currentSlots(query, ctx.now, 'sl').select(consultingSlotColumns('sl'))) as ConsultingSlotRow[];
    const slots = rows
      .map(consultingSlotFromRow)
      .sort(compareSlots)
      .map(
        (slot): ConsultingSlotRecord => ({
          id: slot.id,
          serviceId: slot.serviceId,
          weekday: weekdayName(slot.weekday),
          startTime: slot.startTime,
          durationMinutes: slot.durationMinutes,
          timezone: slot.timezone,
          capacity: slot.capacity,
          validFrom: slot.validFrom,
          validUntil: slot.validUntil,
        }),
      );
    return ids.map((id) => slots.filter((slot) => slot.serviceId === id));
  });
  return loader.load(serviceId);
}

// ---------------------------------------------------------------------------------------------------------------
// Meetings reserved on a service: one connection per service, every service's page fetched together.

/** Schema: service meetings "Ordered newest start first", ties broken by id. */
const SERVICE_MEETINGS_ORDER: SortKey = [
  { column: 'm.starts_at', descending: true, time: true },
  { column: 'm.id', descending: true },
];

type ServiceMeetingRow = MeetingRow & { attendees_count: number | string };

function checkFilter(filter: MeetingFilter | null | undefined): void {
  for (const bound of ['startedAfter', 'startedBefore'] as const) {
    const value = filter?.[bound];
    if (value !== null && value !== undefined && !Number.isSafeInteger(value)) {
      throw new ValidationError(`filter.${bound} must be unix seconds (an integer)`, [{ pointer: `/filter/${bound}`, message: 'must be an integer number of seconds' }]);
    }
  }
  for (const state of filter?.state ?? []) {
    if (!(MEETING_STATES as readonly string[]).includes(state)) {
      throw new ValidationError(`unknown meeting state "${String(state)}"`, [{ pointer: '/filter/state', message: `must be one of ${MEETING_STATES.join(', ')}` }]);
    }
  }
}

/** Meetings of the given services at this site, reserved (at least one live seat), matching the filter. */
function reservedMeetings(ctx: MemberContext, serviceIds: readonly number[], filter: MeetingFilter | null | undefined): Knex.QueryBuilder {
  const query = ctx
    .db('meetings as m')
    .where('m.site_id', ctx.site.id)
    .whereIn('m.service_id', [...serviceIds])
    .whereExists(ctx.db('meeting_seats as rs').whereRaw('rs.meeting_id = m.id').whereNull('rs.canceled_at').select(ctx.db.raw('1')));
  if (filter?.startedAfter !== null && filter?.startedAfter !== undefined) query.where('m.starts_at', '>', new Date(filter.startedAfter * 1000));
  if (filter?.startedBefore !== null && filter?.startedBefore !== undefined) query.where('m.starts_at', '<', new Date(filter.startedBefore * 1000));
  if (filter?.state !== null && filter?.state !== undefined) query.whereIn('m.state', [...filter.state]);
  return query;
}

/** Rows strictly beyond a cursor in the meetings' order (newest start first): a keyset condition. */
/**
 * One page per service in two queries whatever the number of services: the rows of every service's window through
 * ROW_NUMBER() partitioned by service (one row beyond the page size, to know whether more follow), and the
 * per-service totals through GROUP BY.
 */
async function loadServiceMeetingPages(ctx: MemberContext, serviceIds: readonly number[], window: PageWindow, filter: MeetingFilter | null | undefined): Promise<Array<Page<ServiceMeetingRecord>>> {
  const reverse = window.direction === 'backward';
  const direction = reverse ? 'asc' : 'desc';
  const ranked = reservedMeetings(ctx, serviceIds, filter)
    .select(
      ...meetingColumns('m'),
      ctx.db.raw('(select count(*) from meeting_seats as cs where cs.meeting_id = m.id and cs.canceled_at is null) as attendees_count'),
      ctx.db.raw(`row_number() over (partition by m.service_id order by m.starts_at ${direction}, m.id ${direction}) as row_rank`),
    );
  withinWindow(ranked, SERVICE_MEETINGS_ORDER, window);
  const [rows, totals] = await Promise.all([
    ctx
      .db.from(ranked.as('ranked'))
      .where('row_rank', '<=', window.size + 1)
      .orderBy([{ column: 'service_id' }, { column: 'row_rank' }])
      .select('*') as Promise<Array<ServiceMeetingRow & { row_rank: number }>>,
    reservedMeetings(ctx, serviceIds, filter).groupBy('m.service_id').select('m.service_id as service_id').count({ total: '*' }) as Promise<Array<{ service_id: number; total: number | string }>>,
  ]);
  const rowsByService = new Map<number, ServiceMeetingRow[]>();
  for (const row of rows) {
    const list = rowsByService.get(Number(row.service_id)) ?? [];
    list.push(row);
    rowsByService.set(Number(row.service_id), list);
  }
  const totalByService = new Map(totals.map((row) => [Number(row.service_id), Number(row.total)]));
  return serviceIds.map((serviceId) => {
    const found = rowsByService.get(serviceId) ?? [];
    const page = trimPage(found, window.size, reverse);
    const nodes = page.rows.map((row): ServiceMeetingRecord => {
      const meeting = meetingFromRow(row);
      return { id: meeting.id, serviceId, state: meeting.state, startAt: meeting.startsAt, endAt: meeting.endsAt, attendeesCount: Number(row.attendees_count), capacity: meeting.capacity };
    });
    return {
      nodes,
      cursors: nodes.map((node) => encodeCursor([node.startAt.getTime(), node.id])),
      totalCount: totalByService.get(serviceId) ?? 0,
      ...pageFlags(window, page.hasMore),
    };
  });
}

/**
 * The meetings already reserved on a service (at least one live seat), everyone's, newest start first (spec:
 * Consulting, `meetings`). No room link and nothing that marks the viewer's meetings. Batched: every service's page
 * with the same arguments costs two queries together.
 */
export async function listServiceMeetings(ctx: MemberContext, serviceId: number, args: PageArgs, filter?: MeetingFilter | null): Promise<Page<ServiceMeetingRecord>> {
  const window = pageWindow(args, DEFAULT_LIMITS, SERVICE_MEETINGS_ORDER);
  checkFilter(filter);
  const key = JSON.stringify({ window, startedAfter: filter?.startedAfter ?? null, startedBefore: filter?.startedBefore ?? null, state: filter?.state ?? null });
  const loader = ctx.loader<number, Page<ServiceMeetingRecord>>(`service-meetings:${key}`, (ids) => loadServiceMeetingPages(ctx, ids, window, filter));
  return loader.load(serviceId);
}
