import { consultingServiceColumns, consultingServiceFromRow, consultingServicesOfSite, coursesOfServices, type ConsultingServiceData, type ConsultingServiceRow, type ServiceStatus } from '../data/consulting-services.js';
import { coursesOfSite } from '../data/courses.js';
import { consultingSlotColumns, consultingSlotFromRow, type ConsultingSlotData, type ConsultingSlotRow } from '../data/consulting-slots.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow, versionMismatch } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../shared/errors.js';
import type { Site } from '../sites/sites.js';
import { timeZoneOrProblem, usersWithRoleAt } from './common.js';
import { type Queryable } from '../db/queries.js';
import { moneyColumns, priceProblems, type Money } from '../shared/money.js';
import { withTransaction } from '../db/transaction.js';

/**
 * Consulting services and their weekly slots as operators manage them (admin API /consulting-services and
 * /consulting-services/{serviceId}/slots). Rules: docs/admin-scheduling.md, Consulting services and Slots.
 */

export { SERVICE_STATUSES, type ServiceStatus } from '../data/consulting-services.js';

/** A service as operators manage it, with the courses it is offered against. */
export interface ServiceRecord extends ConsultingServiceData {
  courseIds: number[];
}

/** Course ids per service, ascending (only courses of the site: links never cross sites). */
async function courseIdsOf(db: Queryable, siteId: number, serviceIds: readonly number[]): Promise<Map<number, number[]>> {
  const byService = new Map<number, number[]>(serviceIds.map((id) => [id, []]));
  if (serviceIds.length === 0) return byService;
  const rows = (await coursesOfServices(db, siteId, serviceIds)
    .orderBy('c.id')
    .select('csc.service_id as service_id', 'c.id as course_id')) as Array<{ service_id: number | string; course_id: number | string }>;
  for (const row of rows) byService.get(Number(row.service_id))?.push(Number(row.course_id));
  return byService;
}

async function servicesFromRows(db: Queryable, siteId: number, rows: readonly ConsultingServiceRow[]): Promise<ServiceRecord[]> {
  const services = rows.map(consultingServiceFromRow);
  const courses = await courseIdsOf(
    db,
    siteId,
    services.map((service) => service.id),
  );
  return services.map((service) => ({ ...service, courseIds: courses.get(service.id) ?? [] }));
}

export async function requireService(db: Queryable, siteId: number, serviceId: number): Promise<ServiceRecord> {
  const row = (await consultingServicesOfSite(db, siteId).where('consulting_services.id', serviceId).first(consultingServiceColumns())) as ConsultingServiceRow | undefined;
  const [service] = row ? await servicesFromRows(db, siteId, [row]) : [];
  if (!service) throw new NotFoundError(`This site has no consulting service ${serviceId}.`);
  return service;
}

// --- Services: listing ----------------------------------------------------------------------------------------------

const SERVICE_SORTS: SortColumns<'createdAt' | 'updatedAt' | 'title'> = {
  createdAt: { column: 'created_at', type: 'time' },
  updatedAt: { column: 'updated_at', type: 'time' },
  title: { column: 'title', type: 'string' },
};

export async function listServices(
  db: Queryable,
  siteId: number,
  filters: { status?: ServiceStatus | undefined; courseId?: number | undefined },
  query: ListQuery,
): Promise<{ services: ServiceRecord[]; nextCursor: string | null }> {
  const builder = consultingServicesOfSite(db, siteId).select(consultingServiceColumns());
  if (filters.status !== undefined) builder.andWhere('status', filters.status);
  if (filters.courseId !== undefined) {
    const courseId = filters.courseId;
    builder.whereExists(db('consulting_service_courses as csc').select(db.raw('1')).whereRaw('csc.service_id = consulting_services.id').where('csc.course_id', courseId));
  }
  const page = await listPage<ConsultingServiceRow, keyof typeof SERVICE_SORTS>(builder, query, { sorts: SERVICE_SORTS, defaultSort: '-createdAt', filters: { ...filters } });
  return { services: await servicesFromRows(db, siteId, page.rows), nextCursor: page.nextCursor };
}

// --- Services: changing ---------------------------------------------------------------------------------------------

export interface NewService {
  title: string;
  description?: string | null | undefined;
  courseIds?: readonly number[] | undefined;
  durationMinutes: number;
  capacity: number;
  price?: Money | null | undefined;
  status?: ServiceStatus | undefined;
}

export type ServiceChanges = Partial<NewService>;

/** Every course id must be a course of this site (400 at `/courseIds/<i>` otherwise). */
async function courseProblems(db: Queryable, siteId: number, courseIds: readonly number[] | undefined): Promise<FieldProblem[]> {
  if (courseIds === undefined || courseIds.length === 0) return [];
  const rows = (await coursesOfSite(db, siteId).whereIn('courses.id', [...new Set(courseIds)]).select('courses.id')) as Array<{ id: number | string }>;
  const known = new Set(rows.map((row) => Number(row.id)));
  return courseIds.flatMap((id, index) => (known.has(id) ? [] : [{ pointer: `/courseIds/${index}`, message: `is not a course of this site` }]));
}

async function serviceProblems(db: Queryable, siteId: number, input: ServiceChanges): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  if (input.title !== undefined && input.title.trim() === '') problems.push({ pointer: '/title', message: 'must not be blank' });
  problems.push(...priceProblems(input.price, '/price'));
  problems.push(...(await courseProblems(db, siteId, input.courseIds)));
  return problems;
}

async function replaceCourses(db: Queryable, serviceId: number, courseIds: readonly number[]): Promise<void> {
  await db('consulting_service_courses').where({ service_id: serviceId }).delete();
  const unique = [...new Set(courseIds)];
  if (unique.length > 0) await db('consulting_service_courses').insert(unique.map((courseId) => ({ service_id: serviceId, course_id: courseId })));
}

export async function createService(db: Queryable, siteId: number, input: NewService): Promise<ServiceRecord> {
  const problems = await serviceProblems(db, siteId, input);
  if (problems.length > 0) throw new ValidationError('The consulting service is not valid.', problems);
  const id = await withTransaction(db, async (trx) => {
    const now = new Date();
    const [inserted] = await trx('consulting_services').insert({
      site_id: siteId,
      title: input.title.trim(),
      description: input.description ?? null,
      duration_minutes: input.durationMinutes,
      capacity: input.capacity,
      ...moneyColumns('price', input.price ?? null),
      status: input.status ?? 'draft',
      version: 1,
      created_at: now,
      updated_at: now,
    });
    const serviceId = Number(inserted);
    await replaceCourses(trx, serviceId, input.courseIds ?? []);
    return serviceId;
  });
  return requireService(db, siteId, id);
}

/** A merge patch of a service at `expectedVersion`; `courseIds` replaces the whole list (and moves the version). */
export async function updateService(db: Queryable, siteId: number, serviceId: number, changes: ServiceChanges, expectedVersion: number): Promise<ServiceRecord> {
  const current = await requireService(db, siteId, serviceId);
  const problems = await serviceProblems(db, siteId, changes);
  if (problems.length > 0) throw new ValidationError('The consulting service is not valid.', problems);
  if (current.version !== expectedVersion) throw versionMismatch('consulting service');
  const columns: Record<string, unknown> = {};
  if (changes.title !== undefined) columns.title = changes.title.trim();
  if (changes.description !== undefined) columns.description = changes.description;
  if (changes.durationMinutes !== undefined) columns.duration_minutes = changes.durationMinutes;
  if (changes.capacity !== undefined) columns.capacity = changes.capacity;
  if (changes.price !== undefined) Object.assign(columns, moneyColumns('price', changes.price));
  if (changes.status !== undefined) columns.status = changes.status;
  if (changes.courseIds !== undefined) columns.updated_at = new Date();
  await withTransaction(db, async (trx) => {
    await updateVersionedRow(trx, 'consulting_services', { id: serviceId, site_id: siteId }, expectedVersion, columns, {
      what: 'consulting service',
      notFound: `This site has no consulting service ${serviceId}.`,
    });
    if (changes.courseIds !== undefined) await replaceCourses(trx, serviceId, changes.courseIds);
  });
  return requireService(db, siteId, serviceId);
}

/** Deletes a service without meetings (its slots and course links go with it); otherwise 409 `service_has_meetings`. */
export async function deleteService(db: Queryable, siteId: number, serviceId: number): Promise<void> {
  await withTransaction(db, async (trx) => {
    const row = await trx('consulting_services').where({ id: serviceId, site_id: siteId }).forUpdate().first('id');
    if (!row) throw new NotFoundError(`This site has no consulting service ${serviceId}.`);
    const counted = (await trx('meetings').where({ service_id: serviceId }).count({ total: '*' })) as Array<{ total: number | string }>;
    const total = Number(counted[0]?.total ?? 0);
    if (total > 0) {
      throw new ConflictError(
        `The consulting service has ${total} meeting${total === 1 ? '' : 's'} (members' bookings and history), so it cannot be deleted. Set its status to "archived" instead.`,
        'service_has_meetings',
      );
    }
    await trx('consulting_services').where({ id: serviceId, site_id: siteId }).delete();
  });
}

// --- Slots --------------------------------------------------------------------------------------------------------------

/** Roles a slot's host may hold at the site. */
export const HOST_ROLES = ['owner', 'operator', 'staff', 'lecturer'] as const;

export type SlotRecord = ConsultingSlotData;

function slotNotFound(serviceId: number, slotId: number): NotFoundError {
  return new NotFoundError(`Consulting service ${serviceId} of this site has no slot ${slotId}.`);
}

/** The slot of the site's service, or 404 (for an unknown service as for an unknown slot). */
export async function requireSlot(db: Queryable, siteId: number, serviceId: number, slotId: number): Promise<SlotRecord> {
  const row = (await db('consulting_slots as s')
    .join('consulting_services as cs', 'cs.id', 's.service_id')
    .where({ 's.id': slotId, 's.service_id': serviceId, 'cs.site_id': siteId })
    .first(consultingSlotColumns('s'))) as ConsultingSlotRow | undefined;
  if (!row) {
    await requireService(db, siteId, serviceId);
    throw slotNotFound(serviceId, slotId);
  }
  return consultingSlotFromRow(row);
}

const SLOT_SORTS: SortColumns<'weekday' | 'createdAt'> = {
  weekday: { column: 'weekday', type: 'number' },
  createdAt: { column: 'created_at', type: 'time' },
};

export async function listSlots(db: Queryable, siteId: number, serviceId: number, query: ListQuery): Promise<{ slots: SlotRecord[]; nextCursor: string | null }> {
  await requireService(db, siteId, serviceId);
  const builder = db('consulting_slots').where('consulting_slots.service_id', serviceId).select(consultingSlotColumns());
  const page = await listPage<ConsultingSlotRow, keyof typeof SLOT_SORTS>(builder, query, { sorts: SLOT_SORTS, defaultSort: 'weekday', filters: {} });
  return { slots: page.rows.map(consultingSlotFromRow), nextCursor: page.nextCursor };
}

export interface NewSlot {
  weekday: number;
  startTime: string;
  durationMinutes?: number | undefined;
  timezone?: string | undefined;
  capacity?: number | undefined;
  hostUserId?: number | null | undefined;
  validFrom?: string | null | undefined;
  validUntil?: string | null | undefined;
}

export type SlotChanges = Partial<NewSlot>;

/** Host role and validity window of the slot as it will be; the time zone canonicalised. */
async function slotProblems(
  db: Queryable,
  siteId: number,
  result: { hostUserId: number | null; validFrom: Date | null; validUntil: Date | null },
  input: SlotChanges,
): Promise<{ problems: FieldProblem[]; timezone: string | undefined }> {
  const problems: FieldProblem[] = [];
  const timezone = input.timezone === undefined ? undefined : timeZoneOrProblem(input.timezone, '/timezone', problems);
  if (input.hostUserId !== undefined && input.hostUserId !== null && !(await usersWithRoleAt(db, siteId, [input.hostUserId], HOST_ROLES)).has(input.hostUserId)) {
    problems.push({ pointer: '/hostUserId', message: `is not an owner, operator, staff member or lecturer of this site` });
  }
  if (result.validFrom !== null && result.validUntil !== null && result.validFrom.getTime() >= result.validUntil.getTime()) {
    problems.push({ pointer: '/validUntil', message: 'must be after validFrom' });
  }
  return { problems, timezone };
}

function optionalTime(value: string | null | undefined, current: Date | null): Date | null {
  if (value === undefined) return current;
  return value === null ? null : new Date(value);
}

export async function createSlot(db: Queryable, site: Site, serviceId: number, input: NewSlot): Promise<SlotRecord> {
  const service = await requireService(db, site.id, serviceId);
  const validFrom = optionalTime(input.validFrom, null);
  const validUntil = optionalTime(input.validUntil, null);
  const { problems, timezone } = await slotProblems(db, site.id, { hostUserId: input.hostUserId ?? null, validFrom, validUntil }, input);
  if (problems.length > 0) throw new ValidationError('The slot is not valid.', problems);
  const now = new Date();
  const [inserted] = await db('consulting_slots').insert({
    service_id: serviceId,
    weekday: input.weekday,
    start_time: input.startTime,
    duration_minutes: input.durationMinutes ?? service.durationMinutes,
    timezone: timezone ?? site.timezone,
    capacity: input.capacity ?? service.capacity,
    host_user_id: input.hostUserId ?? null,
    valid_from: validFrom,
    valid_until: validUntil,
    version: 1,
    created_at: now,
    updated_at: now,
  });
  return requireSlot(db, site.id, serviceId, Number(inserted));
}

/** A merge patch of a slot at `expectedVersion`. Meetings already opened from it keep their time and capacity. */
export async function updateSlot(db: Queryable, siteId: number, serviceId: number, slotId: number, changes: SlotChanges, expectedVersion: number): Promise<SlotRecord> {
  const current = await requireSlot(db, siteId, serviceId, slotId);
  const validFrom = optionalTime(changes.validFrom, current.validFrom);
  const validUntil = optionalTime(changes.validUntil, current.validUntil);
  const hostUserId = changes.hostUserId === undefined ? current.hostUserId : changes.hostUserId;
  const { problems, timezone } = await slotProblems(db, siteId, { hostUserId, validFrom, validUntil }, changes);
  if (problems.length > 0) throw new ValidationError('The slot is not valid.', problems);
  if (current.version !== expectedVersion) throw versionMismatch('slot');
  const columns: Record<string, unknown> = {};
  if (changes.weekday !== undefined) columns.weekday = changes.weekday;
  if (changes.startTime !== undefined) columns.start_time = changes.startTime;
  if (changes.durationMinutes !== undefined) columns.duration_minutes = changes.durationMinutes;
  if (timezone !== undefined) columns.timezone = timezone;
  if (changes.capacity !== undefined) columns.capacity = changes.capacity;
  if (changes.hostUserId !== undefined) columns.host_user_id = changes.hostUserId;
  if (changes.validFrom !== undefined) columns.valid_from = validFrom;
  if (changes.validUntil !== undefined) columns.valid_until = validUntil;
  await updateVersionedRow(db, 'consulting_slots', { id: slotId, service_id: serviceId }, expectedVersion, columns, { what: 'slot', notFound: `Consulting service ${serviceId} of this site has no slot ${slotId}.` });
  return requireSlot(db, siteId, serviceId, slotId);
}

/**
 * Deletes a slot. Its meetings stay, with their time, seats and state; their slot_id becomes null (set here
 * explicitly, as the foreign key's ON DELETE SET NULL also does).
 */
export async function deleteSlot(db: Queryable, siteId: number, serviceId: number, slotId: number): Promise<{ detachedMeetings: number }> {
  await requireSlot(db, siteId, serviceId, slotId);
  return withTransaction(db, async (trx) => {
    // The meetings' representation changes (slotId becomes null), so their version and updated_at move too.
    const detachedMeetings = await trx('meetings').where({ slot_id: slotId, site_id: siteId }).update({ slot_id: null, version: trx.raw('version + 1'), updated_at: new Date() });
    await trx('consulting_slots').where({ id: slotId, service_id: serviceId }).delete();
    return { detachedMeetings };
  });
}
