import type { Knex } from 'knex';
import { fetchPage, pageWindow, type Page, type PageArgs, type SortKey, withNodes } from '../member/pagination.js';
import { consultingServiceColumns, consultingServiceFromRow, consultingServicesOfSite, coursesOfServices, type ConsultingServiceData, type ConsultingServiceRow } from '../data/consulting-services.js';
import { compareSlots, consultingSlotColumns, consultingSlotFromRow, currentSlots, weekdayName, type ConsultingSlotRow, type Weekday } from '../data/consulting-slots.js';
import { CATALOGUE_LIMITS, type CatalogContext } from './context.js';

/**
 * The consulting services a site offers (published ones), with their weekly availability and the published courses
 * they go with. A catalogue for prospective students: no meetings, no seats, no attendees, no room links.
 */
export interface PublicConsultingService extends Pick<ConsultingServiceData, 'id' | 'title' | 'description' | 'durationMinutes' | 'capacity' | 'price'> {
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

function offeredServices(ctx: CatalogContext): Knex.QueryBuilder {
  return consultingServicesOfSite(ctx.db, ctx.site.id).where('consulting_services.status', 'published');
}

async function coursesOf(ctx: CatalogContext, serviceIds: readonly number[]): Promise<Map<number, PublicCourseRef[]>> {
  const byService = new Map<number, PublicCourseRef[]>(serviceIds.map((id) => [id, []]));
  if (serviceIds.length === 0) return byService;
  const rows = (await coursesOfServices(ctx.db, ctx.site.id, serviceIds)
    .where('c.status', 'published')
    .orderBy([{ column: 'c.title' }, { column: 'c.id' }])
    .select('csc.service_id as service_id', 'c.id as id', 'c.slug as slug', 'c.title as title')) as Array<{ service_id: number | string; id: number | string; slug: string; title: string }>;
  for (const row of rows) byService.get(Number(row.service_id))?.push({ id: Number(row.id), slug: row.slug, title: row.title });
  return byService;
}

/** The current weekly slots of each service, Monday first. */
async function slotsOf(ctx: CatalogContext, serviceIds: readonly number[]): Promise<Map<number, PublicSlot[]>> {
  if (serviceIds.length === 0) return new Map();
  const query = ctx.db('consulting_slots').whereIn('consulting_slots.service_id', [...new Set(serviceIds)]);
  const rows = (await currentSlots(query, ctx.now).select(consultingSlotColumns())) as ConsultingSlotRow[];
  const slots = rows.map(consultingSlotFromRow).sort(compareSlots);
  return new Map(
    serviceIds.map((serviceId) => [
      serviceId,
      slots
        .filter((slot) => slot.serviceId === serviceId)
        .map((slot) => ({ weekday: weekdayName(slot.weekday), startTime: slot.startTime, durationMinutes: slot.durationMinutes, timezone: slot.timezone, capacity: slot.capacity })),
    ]),
  );
}

/** One page of the published consulting services, by title (default 10, at most 50). Throws ValidationError for bad window arguments. */
export async function listOfferedConsultingServices(ctx: CatalogContext, args: PageArgs): Promise<Page<PublicConsultingService>> {
  const window = pageWindow(args, CATALOGUE_LIMITS, SERVICE_ORDER);
  const page = await fetchPage<ConsultingServiceRow & Record<string, unknown>>(() => offeredServices(ctx).select(consultingServiceColumns()), SERVICE_ORDER, window);
  const services = page.nodes.map(consultingServiceFromRow);
  const ids = services.map((service) => service.id);
  const [courses, slots] = await Promise.all([coursesOf(ctx, ids), slotsOf(ctx, ids)]);
  return withNodes(
    page,
    services.map((service) => ({
      id: service.id,
      title: service.title,
      description: service.description,
      durationMinutes: service.durationMinutes,
      capacity: service.capacity,
      price: service.price,
      courses: courses.get(service.id) ?? [],
      weeklySlots: slots.get(service.id) ?? [],
    })),
  );
}

/** Number of published consulting services at the site. */
export async function countOfferedConsultingServices(ctx: CatalogContext): Promise<number> {
  const rows = (await offeredServices(ctx).count({ total: '*' })) as Array<{ total: number | string }>;
  return Number(rows[0]?.total ?? 0);
}
