import type { Knex } from 'knex';
import { fetchPage, pageWindow, type Page, type PageArgs, type SortKey } from '../member/pagination.js';
import { WEEKDAYS, type Weekday } from '../member/services.js';
import { CATALOGUE_LIMITS, type CatalogContext } from './context.js';
import { moneyFromColumns, type Money } from '../shared/money.js';

/**
 * The consulting services a site offers (published ones), with their weekly availability and the published courses
 * they go with. A catalogue for prospective students: no meetings, no seats, no attendees, no room links.
 */
export interface PublicConsultingService {
  id: number;
  title: string;
  description: string | null;
  /** Default length of one meeting, minutes. */
  durationMinutes: number;
  /** Default seats per meeting. */
  capacity: number;
  /** Null when the service has no list price (e.g. included with a course). */
  price: Money | null;
  /** Published courses the service is offered against, by title. */
  courses: PublicCourseRef[];
  /** Recurring weekly availability, Monday first, then start time; windows whose validity ended are left out. */
  weeklySlots: PublicSlot[];
}

export interface PublicCourseRef {
  id: number;
  slug: string;
  title: string;
}

export interface PublicSlot {
  weekday: Weekday;
  /** `HH:MM`, 24-hour, in `timezone`. */
  startTime: string;
  durationMinutes: number;
  /** IANA time zone name. */
  timezone: string;
  capacity: number;
}

/** By title, ties broken by id (the order the member API lists services in). */
const SERVICE_ORDER: SortKey = [
  { column: 'consulting_services.title', descending: false },
  { column: 'consulting_services.id', descending: false },
];

interface ServiceRow extends Record<string, unknown> {
  id: number | string;
  title: string;
  description: string | null;
  duration_minutes: number | string;
  capacity: number | string;
  price_amount: number | string | null;
  price_currency: string | null;
}

function offeredServices(ctx: CatalogContext): Knex.QueryBuilder {
  return ctx.db('consulting_services').where('consulting_services.site_id', ctx.site.id).where('consulting_services.status', 'published');
}

/** Stored weekday: 0 = Sunday … 6 = Saturday; the API names days Monday first. */
function weekdayOf(stored: number): Weekday {
  return WEEKDAYS[(((stored + 6) % 7) + 7) % 7] ?? 'MONDAY';
}

async function coursesOf(ctx: CatalogContext, serviceIds: readonly number[]): Promise<Map<number, PublicCourseRef[]>> {
  const byService = new Map<number, PublicCourseRef[]>(serviceIds.map((id) => [id, []]));
  if (serviceIds.length === 0) return byService;
  const rows = (await ctx
    .db('consulting_service_courses as csc')
    .join('courses as c', 'c.id', 'csc.course_id')
    .whereIn('csc.service_id', [...new Set(serviceIds)])
    .where('c.site_id', ctx.site.id)
    .where('c.status', 'published')
    .orderBy([{ column: 'c.title' }, { column: 'c.id' }])
    .select('csc.service_id as service_id', 'c.id as id', 'c.slug as slug', 'c.title as title')) as Array<{ service_id: number | string; id: number | string; slug: string; title: string }>;
  for (const row of rows) byService.get(Number(row.service_id))?.push({ id: Number(row.id), slug: row.slug, title: row.title });
  return byService;
}

async function slotsOf(ctx: CatalogContext, serviceIds: readonly number[]): Promise<Map<number, PublicSlot[]>> {
  const byService = new Map<number, Array<PublicSlot & { id: number }>>(serviceIds.map((id) => [id, []]));
  if (serviceIds.length === 0) return new Map();
  const rows = (await ctx
    .db('consulting_slots')
    .whereIn('service_id', [...new Set(serviceIds)])
    .where((current) => current.whereNull('valid_until').orWhere('valid_until', '>', ctx.now))
    .select('id', 'service_id', 'weekday', 'start_time', 'duration_minutes', 'timezone', 'capacity')) as Array<{
    id: number | string;
    service_id: number | string;
    weekday: number | string;
    start_time: string;
    duration_minutes: number | string;
    timezone: string;
    capacity: number | string;
  }>;
  for (const row of rows) {
    byService.get(Number(row.service_id))?.push({
      id: Number(row.id),
      weekday: weekdayOf(Number(row.weekday)),
      startTime: row.start_time,
      durationMinutes: Number(row.duration_minutes),
      timezone: row.timezone,
      capacity: Number(row.capacity),
    });
  }
  const result = new Map<number, PublicSlot[]>();
  for (const [serviceId, slots] of byService) {
    slots.sort((a, b) => WEEKDAYS.indexOf(a.weekday) - WEEKDAYS.indexOf(b.weekday) || a.startTime.localeCompare(b.startTime) || a.id - b.id);
    result.set(
      serviceId,
      slots.map(({ weekday, startTime, durationMinutes, timezone, capacity }) => ({ weekday, startTime, durationMinutes, timezone, capacity })),
    );
  }
  return result;
}

/** One page of the published consulting services, by title (default 10, at most 50). Throws ValidationError for bad window arguments. */
export async function listOfferedConsultingServices(ctx: CatalogContext, args: PageArgs): Promise<Page<PublicConsultingService>> {
  const window = pageWindow(args, CATALOGUE_LIMITS, SERVICE_ORDER);
  const page = await fetchPage<ServiceRow>(
    () =>
      offeredServices(ctx).select(
        'consulting_services.id as id',
        'consulting_services.title as title',
        'consulting_services.description as description',
        'consulting_services.duration_minutes as duration_minutes',
        'consulting_services.capacity as capacity',
        'consulting_services.price_amount as price_amount',
        'consulting_services.price_currency as price_currency',
      ),
    SERVICE_ORDER,
    window,
  );
  const ids = page.nodes.map((row) => Number(row.id));
  const [courses, slots] = await Promise.all([coursesOf(ctx, ids), slotsOf(ctx, ids)]);
  return {
    ...page,
    nodes: page.nodes.map((row) => {
      const id = Number(row.id);
      return {
        id,
        title: row.title,
        description: row.description,
        durationMinutes: Number(row.duration_minutes),
        capacity: Number(row.capacity),
        price: moneyFromColumns(row.price_amount, row.price_currency),
        courses: courses.get(id) ?? [],
        weeklySlots: slots.get(id) ?? [],
      };
    }),
  };
}

/** Number of published consulting services at the site. */
export async function countOfferedConsultingServices(ctx: CatalogContext): Promise<number> {
  const rows = (await offeredServices(ctx).count({ total: '*' })) as Array<{ total: number | string }>;
  return Number(rows[0]?.total ?? 0);
}
