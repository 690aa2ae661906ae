import {
  eventRegistrationColumns,
  eventRegistrationFromRow,
  eventRegistrationsOfSite,
  type EventRegistrationData,
  type EventRegistrationRow,
  type RegistrationState,
} from '../data/event-registrations.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow, versionMismatch } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { memberRefs, usersWithRoleAt, type MemberRef } from './common.js';
import { liveRegistrationCounts } from '../data/events.js';
import { requireEventRow } from './events.js';
import { type Queryable, isUniqueViolation } from '../db/queries.js';
import { withTransaction } from '../db/transaction.js';

/**
 * Members' registrations for an event as operators manage them (admin API /events/{eventId}/registrations):
 * registering a member, and moving a registration through its states. Rules: docs/admin-scheduling.md,
 * Registrations.
 */

export { REGISTRATION_STATES, type RegistrationState } from '../data/event-registrations.js';

/** The transitions an operator may make; setting the current state again changes nothing. */
export const REGISTRATION_TRANSITIONS: Readonly<Record<RegistrationState, readonly RegistrationState[]>> = {
  registered: ['attended', 'no_show', 'canceled'],
  attended: ['no_show', 'registered'],
  no_show: ['attended', 'registered'],
  canceled: ['registered'],
};

/** A registration as operators see it, with the member it is for. */
export interface RegistrationRecord extends Omit<EventRegistrationData, 'userId'> {
  member: MemberRef;
}

async function withMembers(db: Queryable, siteId: number, rows: readonly EventRegistrationRow[]): Promise<RegistrationRecord[]> {
  const registrations = rows.map(eventRegistrationFromRow);
  const members = await memberRefs(
    db,
    siteId,
    registrations.map((registration) => registration.userId),
  );
  return registrations.map(({ userId, ...registration }) => ({ ...registration, member: members.get(userId) ?? { id: userId, name: '', email: '' } }));
}

function registrationNotFound(eventId: number, registrationId: number): NotFoundError {
  return new NotFoundError(`Event ${eventId} of this site has no registration ${registrationId}.`);
}

export async function requireRegistration(db: Queryable, siteId: number, eventId: number, registrationId: number): Promise<RegistrationRecord> {
  const row = (await eventRegistrationsOfSite(db, siteId).where({ 'event_registrations.id': registrationId, 'event_registrations.event_id': eventId }).first(eventRegistrationColumns())) as
    | EventRegistrationRow
    | undefined;
  if (!row) {
    await requireEventRow(db, siteId, eventId);
    throw registrationNotFound(eventId, registrationId);
  }
  const [record] = await withMembers(db, siteId, [row]);
  if (!record) throw registrationNotFound(eventId, registrationId);
  return record;
}

const REGISTRATION_SORTS: SortColumns<'registeredAt'> = {
  registeredAt: { column: 'registered_at', type: 'time' },
};

/** One keyset page of the event's registrations (every state), in registration order unless `sort` says otherwise. */
export async function listRegistrations(
  db: Queryable,
  siteId: number,
  eventId: number,
  filters: { state?: RegistrationState | undefined },
  query: ListQuery,
): Promise<{ registrations: RegistrationRecord[]; nextCursor: string | null }> {
  await requireEventRow(db, siteId, eventId);
  const builder = eventRegistrationsOfSite(db, siteId).where('event_registrations.event_id', eventId).select(eventRegistrationColumns());
  if (filters.state !== undefined) builder.andWhere('state', filters.state);
  const page = await listPage<EventRegistrationRow, 'registeredAt'>(builder, query, { sorts: REGISTRATION_SORTS, defaultSort: 'registeredAt', filters: { ...filters } });
  return { registrations: await withMembers(db, siteId, page.rows), nextCursor: page.nextCursor };
}

function eventCanceled(eventId: number): ConflictError {
  return new ConflictError(`Event ${eventId} is canceled and takes no registrations.`, 'event_canceled');
}

/** 409 `event_full` unless one more live registration fits the event's capacity (unlimited when null). */
async function requirePlace(db: Queryable, event: { id: number; capacity: number | null }): Promise<void> {
  if (event.capacity === null) return;
  const live = (await liveRegistrationCounts(db, [event.id])).get(event.id) ?? 0;
  if (live >= event.capacity) {
    throw new ConflictError(`Event ${event.id} is full: its ${event.capacity} places are taken by registrations that are not canceled. Raise its capacity or cancel a registration first.`, 'event_full');
  }
}

function alreadyRegistered(eventId: number, userId: number): ConflictError {
  return new ConflictError(`User ${userId} already has a registration for event ${eventId}. Change its state instead (a canceled one is reinstated with state "registered").`, 'already_registered');
}

/**
 * Registers a member of the site (a user with any role here) for the event, state `registered`. The event row is
 * locked for the check and the insert, so two registrations never both take the last place.
 */
export async function createRegistration(db: Queryable, siteId: number, eventId: number, userId: number): Promise<RegistrationRecord> {
  const id = await withTransaction(db, async (trx) => {
    const event = await requireEventRow(trx, siteId, eventId, true);
    if (!(await usersWithRoleAt(trx, siteId, [userId])).has(userId)) {
      throw new ValidationError('The registration is not valid.', [{ pointer: '/userId', message: 'is not a member of this site' }]);
    }
    if (event.status === 'canceled') throw eventCanceled(eventId);
    if (await trx('event_registrations').where({ event_id: eventId, user_id: userId }).first('id')) throw alreadyRegistered(eventId, userId);
    await requirePlace(trx, event);
    const now = new Date();
    try {
      const [inserted] = await trx('event_registrations').insert({
        site_id: siteId,
        event_id: eventId,
        user_id: userId,
        state: 'registered',
        ticket_code: null,
        registered_at: now,
        canceled_at: null,
        version: 1,
        created_at: now,
        updated_at: now,
      });
      return Number(inserted);
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyRegistered(eventId, userId);
      throw error;
    }
  });
  return requireRegistration(db, siteId, eventId, id);
}

/**
 * Moves a registration to `state` along REGISTRATION_TRANSITIONS, at `expectedVersion`. Reinstating a canceled one
 * needs a place and an event that is not canceled. Canceling records canceled_at; reinstating clears it.
 */
export async function updateRegistration(
  db: Queryable,
  siteId: number,
  eventId: number,
  registrationId: number,
  changes: { state?: RegistrationState | undefined },
  expectedVersion: number,
): Promise<RegistrationRecord> {
  const current = await requireRegistration(db, siteId, eventId, registrationId);
  if (current.version !== expectedVersion) throw versionMismatch('registration');
  const target = changes.state;
  if (target === undefined || target === current.state) return current;
  if (!REGISTRATION_TRANSITIONS[current.state].includes(target)) {
    throw new ConflictError(
      `The registration is ${current.state}; it cannot become ${target} (from ${current.state} it can become ${REGISTRATION_TRANSITIONS[current.state].join(', ')}).`,
      'invalid_state_transition',
    );
  }
  await withTransaction(db, async (trx) => {
    if (current.state === 'canceled') {
      const event = await requireEventRow(trx, siteId, eventId, true);
      if (event.status === 'canceled') throw eventCanceled(eventId);
      await requirePlace(trx, event);
    }
    const columns: Record<string, unknown> = { state: target };
    if (target === 'canceled') columns.canceled_at = new Date();
    if (current.state === 'canceled') columns.canceled_at = null;
    await updateVersionedRow(trx, 'event_registrations', { id: registrationId, event_id: eventId, site_id: siteId }, expectedVersion, columns, {
      what: 'registration',
      notFound: `Event ${eventId} of this site has no registration ${registrationId}.`,
    });
  });
  return requireRegistration(db, siteId, eventId, registrationId);
}
