import { eventColumns, eventFromRow, eventsOfSite, liveRegistrationCounts, type EventData, type EventFormat, type EventRow, type EventStatus } from '../data/events.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow, versionMismatch } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError, SlugTakenError, ValidationError, type FieldProblem } from '../shared/errors.js';
import type { Site } from '../sites/sites.js';
import { timeZoneOrProblem, webUrlProblem } from './common.js';
import { type Queryable, isUniqueViolation } from '../db/queries.js';
import { moneyColumns, priceProblems, type Money } from '../shared/money.js';
import { withTransaction } from '../db/transaction.js';

/**
 * The school's events as operators manage them (admin API /events): drafts, published and canceled events with the
 * count of their live registrations. Rules: docs/admin-scheduling.md, Events.
 */

export { EVENT_STATUSES, type EventFormat, type EventStatus } from '../data/events.js';

/** An event as operators manage it, with the count its capacity is held against. */
export interface EventRecord extends EventData {
  /** Registrations that are not canceled (registered, attended, no_show): what `capacity` is counted against. */
  registeredCount: number;
}

async function withCounts(db: Queryable, rows: readonly EventRow[]): Promise<EventRecord[]> {
  const counts = await liveRegistrationCounts(
    db,
    rows.map((row) => Number(row.id)),
  );
  return rows.map((row) => ({ ...eventFromRow(row), registeredCount: counts.get(Number(row.id)) ?? 0 }));
}

async function findEventRow(db: Queryable, siteId: number, eventId: number, lock = false): Promise<EventRow | undefined> {
  const query = eventsOfSite(db, siteId).where('events.id', eventId).select(eventColumns());
  if (lock) query.forUpdate();
  return (await query.first()) as EventRow | undefined;
}

function eventNotFound(eventId: number): NotFoundError {
  return new NotFoundError(`This site has no event ${eventId}.`);
}

/** The event's status and capacity (its row locked for the transaction when `lock`), or 404. */
export async function requireEventRow(db: Queryable, siteId: number, eventId: number, lock = false): Promise<{ id: number; status: EventStatus; capacity: number | null }> {
  const row = await findEventRow(db, siteId, eventId, lock);
  if (!row) throw eventNotFound(eventId);
  const event = eventFromRow(row);
  return { id: event.id, status: event.status, capacity: event.capacity };
}

export async function requireEvent(db: Queryable, siteId: number, eventId: number): Promise<EventRecord> {
  const row = await findEventRow(db, siteId, eventId);
  if (!row) throw eventNotFound(eventId);
  const [event] = await withCounts(db, [row]);
  if (!event) throw eventNotFound(eventId);
  return event;
}

// --- Listing ----------------------------------------------------------------------------------------------------------

export interface EventFilters {
  status?: EventStatus | undefined;
  startsFrom?: string | undefined;
  startsTo?: string | undefined;
}

const EVENT_SORTS: SortColumns<'startsAt' | 'createdAt' | 'title'> = {
  startsAt: { column: 'starts_at', type: 'time' },
  createdAt: { column: 'created_at', type: 'time' },
  title: { column: 'title', type: 'string' },
};

/** One keyset page of the site's events, newest start first unless `sort` says otherwise. */
export async function listEvents(db: Queryable, siteId: number, filters: EventFilters, query: ListQuery): Promise<{ events: EventRecord[]; nextCursor: string | null }> {
  const builder = eventsOfSite(db, siteId).select(eventColumns());
  if (filters.status !== undefined) builder.andWhere('status', filters.status);
  if (filters.startsFrom !== undefined) builder.andWhere('starts_at', '>=', new Date(filters.startsFrom));
  if (filters.startsTo !== undefined) builder.andWhere('starts_at', '<', new Date(filters.startsTo));
  const page = await listPage<EventRow, keyof typeof EVENT_SORTS>(builder, query, { sorts: EVENT_SORTS, defaultSort: '-startsAt', filters: { ...filters } });
  return { events: await withCounts(db, page.rows), nextCursor: page.nextCursor };
}

// --- Rules --------------------------------------------------------------------------------------------------------------

/** The writable fields of an event after a create or a merge patch. */
type EventFields = Omit<EventData, 'id' | 'version' | 'createdAt' | 'updatedAt'>;

/** Everything the contract cannot say about an event, reported at once (400 with pointers). */
function eventProblems(fields: EventFields, timezoneInput: string | undefined, problems: FieldProblem[]): EventFields {
  const result = { ...fields };
  if (fields.title.trim() === '') problems.push({ pointer: '/title', message: 'must not be blank' });
  else result.title = fields.title.trim();
  if (timezoneInput !== undefined) result.timezone = timeZoneOrProblem(timezoneInput, '/timezone', problems);
  if (fields.startsAt.getTime() >= fields.endsAt.getTime()) problems.push({ pointer: '/endsAt', message: 'must be after startsAt' });
  if (fields.format === 'venue') {
    if (fields.location === null || fields.location.trim() === '') problems.push({ pointer: '/location', message: 'is required for a venue event' });
    if (fields.onlineUrl !== null) problems.push({ pointer: '/onlineUrl', message: 'is only for an online event' });
  } else if (fields.location !== null) {
    problems.push({ pointer: '/location', message: 'is only for a venue event' });
  }
  const urlProblem = webUrlProblem(fields.onlineUrl, '/onlineUrl');
  if (urlProblem) problems.push(urlProblem);
  problems.push(...priceProblems(fields.price, '/price'));
  return result;
}

function fieldColumns(fields: EventFields): Record<string, unknown> {
  return {
    slug: fields.slug,
    title: fields.title,
    description: fields.description,
    starts_at: fields.startsAt,
    ends_at: fields.endsAt,
    timezone: fields.timezone,
    format: fields.format,
    location: fields.location,
    online_url: fields.onlineUrl,
    capacity: fields.capacity,
    ...moneyColumns('price', fields.price),
    status: fields.status,
    is_public: fields.isPublic,
  };
}

async function requireSlugFree(db: Queryable, siteId: number, slug: string, exceptEventId?: number): Promise<void> {
  const query = eventsOfSite(db, siteId).where('events.slug', slug);
  if (exceptEventId !== undefined) query.whereNot('events.id', exceptEventId);
  if (await query.first('id')) throw new SlugTakenError('event', slug);
}

// --- Creating -----------------------------------------------------------------------------------------------------------

export interface NewEvent {
  slug: string;
  title: string;
  description?: string | null | undefined;
  startsAt: string;
  endsAt: string;
  timezone?: string | undefined;
  format: EventFormat;
  location?: string | null | undefined;
  onlineUrl?: string | null | undefined;
  capacity?: number | null | undefined;
  price?: Money | null | undefined;
  status?: 'draft' | 'published' | undefined;
  isPublic?: boolean | undefined;
}

/** Creates an event (draft unless said otherwise; the school's time zone unless said otherwise). */
export async function createEvent(db: Queryable, site: Site, input: NewEvent): Promise<EventRecord> {
  const problems: FieldProblem[] = [];
  const fields = eventProblems(
    {
      slug: input.slug,
      title: input.title,
      description: input.description ?? null,
      startsAt: new Date(input.startsAt),
      endsAt: new Date(input.endsAt),
      timezone: site.timezone,
      format: input.format,
      location: input.location ?? null,
      onlineUrl: input.onlineUrl ?? null,
      capacity: input.capacity ?? null,
      price: input.price ?? null,
      status: input.status ?? 'draft',
      isPublic: input.isPublic ?? true,
    },
    input.timezone,
    problems,
  );
  if (problems.length > 0) throw new ValidationError('The event is not valid.', problems);
  await requireSlugFree(db, site.id, fields.slug);
  const now = new Date();
  let id: number;
  try {
    const [inserted] = await db('events').insert({ site_id: site.id, ...fieldColumns(fields), version: 1, created_at: now, updated_at: now });
    id = Number(inserted);
  } catch (error) {
    if (isUniqueViolation(error)) throw new SlugTakenError('event', fields.slug);
    throw error;
  }
  return requireEvent(db, site.id, id);
}

// --- Changing -----------------------------------------------------------------------------------------------------------

export type EventChanges = Partial<Omit<NewEvent, 'startsAt' | 'endsAt'>> & { startsAt?: string | undefined; endsAt?: string | undefined };

function invalidTransition(current: string, action: string): ConflictError {
  return new ConflictError(`The event is ${current}; it cannot ${action}.`, 'invalid_state_transition');
}

/**
 * A merge patch of an event, applied only at `expectedVersion`. `status` moves between draft and published; a
 * canceled event keeps its status. The capacity may not drop below the live registrations.
 */
export async function updateEvent(db: Queryable, siteId: number, eventId: number, changes: EventChanges, expectedVersion: number): Promise<EventRecord> {
  const current = await requireEvent(db, siteId, eventId);
  const problems: FieldProblem[] = [];
  const merged = eventProblems(
    {
      slug: changes.slug ?? current.slug,
      title: changes.title ?? current.title,
      description: changes.description === undefined ? current.description : changes.description,
      startsAt: changes.startsAt === undefined ? current.startsAt : new Date(changes.startsAt),
      endsAt: changes.endsAt === undefined ? current.endsAt : new Date(changes.endsAt),
      timezone: current.timezone,
      format: changes.format ?? current.format,
      location: changes.location === undefined ? current.location : changes.location,
      onlineUrl: changes.onlineUrl === undefined ? current.onlineUrl : changes.onlineUrl,
      capacity: changes.capacity === undefined ? current.capacity : changes.capacity,
      price: changes.price === undefined ? current.price : changes.price,
      status: changes.status ?? current.status,
      isPublic: changes.isPublic ?? current.isPublic,
    },
    changes.timezone,
    problems,
  );
  if (problems.length > 0) throw new ValidationError('The event is not valid.', problems);
  if (current.version !== expectedVersion) throw versionMismatch('event');
  if (changes.status !== undefined && current.status === 'canceled') throw invalidTransition('canceled', `become ${changes.status}: a canceled event stays canceled`);
  await withTransaction(db, async (trx) => {
    await findEventRow(trx, siteId, eventId, true);
    if (changes.slug !== undefined && changes.slug !== current.slug) await requireSlugFree(trx, siteId, changes.slug, eventId);
    if (changes.capacity !== undefined && changes.capacity !== null) {
      const live = (await liveRegistrationCounts(trx, [eventId])).get(eventId) ?? 0;
      if (changes.capacity < live) {
        throw new ConflictError(`The event has ${live} registrations that are not canceled; its capacity cannot be lower. Cancel registrations first.`, 'capacity_below_registrations');
      }
    }
    const columns = fieldColumns(merged);
    const touched = Object.fromEntries(Object.entries(columns).filter(([column]) => changedColumn(column, changes)));
    try {
      await updateVersionedRow(trx, 'events', { id: eventId, site_id: siteId }, expectedVersion, touched, { what: 'event', notFound: `This site has no event ${eventId}.` });
    } catch (error) {
      if (isUniqueViolation(error)) throw new SlugTakenError('event', merged.slug);
      throw error;
    }
  });
  return requireEvent(db, siteId, eventId);
}

const CHANGE_COLUMNS: Record<string, keyof EventChanges> = {
  slug: 'slug',
  title: 'title',
  description: 'description',
  starts_at: 'startsAt',
  ends_at: 'endsAt',
  timezone: 'timezone',
  format: 'format',
  location: 'location',
  online_url: 'onlineUrl',
  capacity: 'capacity',
  price_amount: 'price',
  price_currency: 'price',
  status: 'status',
  is_public: 'isPublic',
};

/** Only the columns of members present in the patch are written (an empty patch writes nothing). */
function changedColumn(column: string, changes: EventChanges): boolean {
  const member = CHANGE_COLUMNS[column];
  return member !== undefined && changes[member] !== undefined;
}

/** Cancels the event (status canceled); registrations stay as they are. 409 when it is already canceled. */
export async function cancelEvent(db: Queryable, siteId: number, eventId: number): Promise<EventRecord> {
  await requireEventRow(db, siteId, eventId);
  const updated = await db('events')
    .where({ id: eventId, site_id: siteId })
    .whereNot('status', 'canceled')
    .update({ status: 'canceled', version: db.raw('version + 1'), updated_at: new Date() });
  if (updated === 0) {
    await requireEventRow(db, siteId, eventId);
    throw invalidTransition('canceled', 'be canceled again');
  }
  return requireEvent(db, siteId, eventId);
}

/** Deletes an event nobody registered for; otherwise 409 `event_has_registrations` (cancel it instead). */
export async function deleteEvent(db: Queryable, siteId: number, eventId: number): Promise<void> {
  await withTransaction(db, async (trx) => {
    const row = await findEventRow(trx, siteId, eventId, true);
    if (!row) throw eventNotFound(eventId);
    const registrations = (await trx('event_registrations').where({ event_id: eventId }).count({ total: '*' })) as Array<{ total: number | string }>;
    const total = Number(registrations[0]?.total ?? 0);
    if (total > 0) {
      throw new ConflictError(
        `The event has ${total} registration${total === 1 ? '' : 's'} (members' history, canceled ones included), so it cannot be deleted. Cancel the event instead (POST /events/${eventId}/cancel): its registrations are kept.`,
        'event_has_registrations',
      );
    }
    await trx('events').where({ id: eventId, site_id: siteId }).delete();
  });
}
