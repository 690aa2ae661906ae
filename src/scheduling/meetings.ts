import { actorIds, clientIdsByRef, recordedActor, type Actor, type RecordedActor } from '../clients/actors.js';
import type { Database } from '../db/connection.js';
import { requireDate, toDate } from '../db/connection.js';
import { consultingSlotColumns, consultingSlotFromRow, type ConsultingSlotRow } from '../data/consulting-slots.js';
import { meetingColumns, meetingFromRow, meetingsOfSite, type MeetingData, type MeetingRow, type MeetingState } from '../data/meetings.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { MemberContext } from '../member/context.js';
import { meetingAttendeesCount } from '../member/meetings.js';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../shared/errors.js';
import type { Site } from '../sites/sites.js';
import { memberRefs, webUrlProblem, type MemberRef } from './common.js';
import { requireService, type SlotRecord } from './consulting.js';

/**
 * Meetings as operators see and run them (admin API /meetings and /consulting-services/{serviceId}/meetings):
 * consulting meetings of a service (members reserve seats on them) and study-group meetings, with the staff actions
 * of the spec's Meeting state table. attendeesCount comes from the member domain layer (src/member/meetings.ts), so
 * both APIs count alike. Rules: docs/admin-scheduling.md, Meetings.
 */

export type { MeetingState } from '../member/services.js';
export type MeetingKind = 'consulting' | 'study_group';

/** A meeting as operators see it: its kind, its attendees and who confirmed it. */
export interface MeetingRecord extends Omit<MeetingData, 'confirmedByClientRef'> {
  kind: MeetingKind;
  attendeesCount: number;
  /** Who confirmed it: an operator or a service client. */
  confirmedBy: RecordedActor;
}

export interface SeatRecord {
  member: MemberRef;
  reservedAt: Date;
  canceledAt: Date | null;
}

export interface MeetingWithSeats extends MeetingRecord {
  seats: SeatRecord[];
}

/**
 * Records with attendeesCount from the member layer's meetingAttendeesCount (seats not canceled; the roster size for
 * a study-group meeting). One MemberContext per call: its loaders batch the page into one query per kind.
 */
async function meetingsFromRows(db: Database, site: Site, by: Actor, rows: readonly MeetingRow[]): Promise<MeetingRecord[]> {
  // The attendee counts read no viewer data; a service client has no user id to give.
  const ctx = new MemberContext({ db, site, userId: by.kind === 'user' ? by.userId : 0 });
  const clientIds = await clientIdsByRef(db, rows.map((row) => row.confirmed_by_client_ref));
  return Promise.all(
    rows.map(async (row) => {
      const { confirmedByClientRef, ...meeting } = meetingFromRow(row);
      return {
        id: meeting.id,
        kind: meeting.studyGroupId === null ? 'consulting' : 'study_group',
        serviceId: meeting.serviceId,
        slotId: meeting.slotId,
        studyGroupId: meeting.studyGroupId,
        state: meeting.state,
        startsAt: meeting.startsAt,
        endsAt: meeting.endsAt,
        capacity: meeting.capacity,
        attendeesCount: await meetingAttendeesCount(ctx, { dbId: meeting.id, studyGroupId: meeting.studyGroupId }),
        roomUrl: meeting.roomUrl,
        confirmedAt: meeting.confirmedAt,
        confirmedByUserId: meeting.confirmedByUserId,
        confirmedBy: recordedActor(meeting.confirmedByUserId, confirmedByClientRef, clientIds),
        canceledAt: meeting.canceledAt,
        cancelReason: meeting.cancelReason,
        version: meeting.version,
        createdAt: meeting.createdAt,
        updatedAt: meeting.updatedAt,
      } satisfies MeetingRecord;
    }),
  );
}

/** Every seat of a meeting, in reservation order, given-up ones included. */
async function seatsOf(db: Database, siteId: number, meetingId: number): Promise<SeatRecord[]> {
  const rows = (await db('meeting_seats').where({ meeting_id: meetingId }).orderBy([{ column: 'reserved_at' }, { column: 'id' }]).select('user_id', 'reserved_at', 'canceled_at')) as Array<{
    user_id: number | string;
    reserved_at: unknown;
    canceled_at: unknown;
  }>;
  const members = await memberRefs(
    db,
    siteId,
    rows.map((row) => Number(row.user_id)),
  );
  return rows.map((row) => {
    const userId = Number(row.user_id);
    return { member: members.get(userId) ?? { id: userId, name: '', email: '' }, reservedAt: requireDate(row.reserved_at), canceledAt: toDate(row.canceled_at) };
  });
}

export async function requireMeeting(db: Database, site: Site, by: Actor, meetingId: number): Promise<MeetingWithSeats> {
  const row = (await meetingsOfSite(db, site.id).where('meetings.id', meetingId).first(meetingColumns())) as MeetingRow | undefined;
  const [meeting] = row ? await meetingsFromRows(db, site, by, [row]) : [];
  if (!meeting) throw new NotFoundError(`This site has no meeting ${meetingId}.`);
  return { ...meeting, seats: meeting.kind === 'consulting' ? await seatsOf(db, site.id, meetingId) : [] };
}

// --- Listing ----------------------------------------------------------------------------------------------------------

export interface MeetingFilters {
  serviceId?: number | undefined;
  kind?: MeetingKind | undefined;
  state?: MeetingState | undefined;
  startsFrom?: string | undefined;
  startsTo?: string | undefined;
}

const MEETING_SORTS: SortColumns<'startsAt'> = {
  startsAt: { column: 'starts_at', type: 'time' },
};

/** One keyset page of the site's meetings of both kinds, newest start first unless `sort` says otherwise. */
export async function listMeetings(db: Database, site: Site, by: Actor, filters: MeetingFilters, query: ListQuery): Promise<{ meetings: MeetingRecord[]; nextCursor: string | null }> {
  const builder = meetingsOfSite(db, site.id).select(meetingColumns());
  if (filters.serviceId !== undefined) builder.andWhere('service_id', filters.serviceId);
  if (filters.kind === 'consulting') builder.whereNull('study_group_id');
  if (filters.kind === 'study_group') builder.whereNotNull('study_group_id');
  if (filters.state !== undefined) builder.andWhere('state', filters.state);
  if (filters.startsFrom !== undefined) builder.andWhere('starts_at', '>=', new Date(filters.startsFrom));
  if (filters.startsTo !== undefined) builder.andWhere('starts_at', '<', new Date(filters.startsTo));
  const page = await listPage<MeetingRow, 'startsAt'>(builder, query, { sorts: MEETING_SORTS, defaultSort: '-startsAt', filters: { ...filters } });
  return { meetings: await meetingsFromRows(db, site, by, page.rows), nextCursor: page.nextCursor };
}

// --- Opening a consulting meeting -------------------------------------------------------------------------------------

const WEEKDAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Weekday (0 = Sunday) and `HH:MM` of `instant` on the wall clock of `timeZone`. */
export function localWeekdayAndTime(instant: Date, timeZone: string): { weekday: number; time: string } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(instant);
  const part = (type: string): string => parts.find((candidate) => candidate.type === type)?.value ?? '';
  return { weekday: WEEKDAY_NAMES.indexOf(part('weekday')), time: `${part('hour')}:${part('minute')}` };
}

/** Why `startsAt` is not an occurrence of `slot`, or null when it is one. */
function slotOccurrenceProblem(slot: SlotRecord, startsAt: Date): string | null {
  const local = localWeekdayAndTime(startsAt, slot.timezone);
  if (local.weekday !== slot.weekday || local.time !== slot.startTime || startsAt.getUTCSeconds() !== 0 || startsAt.getUTCMilliseconds() !== 0) {
    return `is not an occurrence of slot ${slot.id} (weekday ${slot.weekday}, ${slot.startTime} in ${slot.timezone}); there it is weekday ${local.weekday}, ${local.time}`;
  }
  if (slot.validFrom !== null && startsAt.getTime() < slot.validFrom.getTime()) return `is before slot ${slot.id} applies (validFrom ${slot.validFrom.toISOString()})`;
  if (slot.validUntil !== null && startsAt.getTime() > slot.validUntil.getTime()) return `is after slot ${slot.id} stopped applying (validUntil ${slot.validUntil.toISOString()})`;
  return null;
}

export interface NewConsultingMeeting {
  startsAt: string;
  endsAt?: string | undefined;
  slotId?: number | null | undefined;
  capacity?: number | undefined;
  roomUrl?: string | null | undefined;
}

async function slotOfService(db: Database, serviceId: number, slotId: number): Promise<SlotRecord | null> {
  const row = (await db('consulting_slots').where({ 'consulting_slots.id': slotId, 'consulting_slots.service_id': serviceId }).first(consultingSlotColumns())) as ConsultingSlotRow | undefined;
  return row ? consultingSlotFromRow(row) : null;
}

/** Opens a meeting of the service, state `available`; durations and capacity default to the slot's, else the service's. */
export async function createConsultingMeeting(db: Database, site: Site, by: Actor, serviceId: number, input: NewConsultingMeeting): Promise<MeetingWithSeats> {
  const service = await requireService(db, site.id, serviceId);
  const problems: FieldProblem[] = [];
  const startsAt = new Date(input.startsAt);
  let slot: SlotRecord | null = null;
  if (input.slotId !== undefined && input.slotId !== null) {
    slot = await slotOfService(db, serviceId, input.slotId);
    if (slot === null) problems.push({ pointer: '/slotId', message: `is not a slot of consulting service ${serviceId}` });
    else {
      const problem = slotOccurrenceProblem(slot, startsAt);
      if (problem) problems.push({ pointer: '/startsAt', message: problem });
    }
  }
  const durationMinutes = slot?.durationMinutes ?? service.durationMinutes;
  const endsAt = input.endsAt === undefined ? new Date(startsAt.getTime() + durationMinutes * 60_000) : new Date(input.endsAt);
  if (startsAt.getTime() >= endsAt.getTime()) problems.push({ pointer: '/endsAt', message: 'must be after startsAt' });
  const urlProblem = webUrlProblem(input.roomUrl, '/roomUrl');
  if (urlProblem) problems.push(urlProblem);
  if (problems.length > 0) throw new ValidationError('The meeting is not valid.', problems);
  const now = new Date();
  const [inserted] = await db('meetings').insert({
    site_id: site.id,
    service_id: serviceId,
    slot_id: slot?.id ?? null,
    study_group_id: null,
    session_id: null,
    starts_at: startsAt,
    ends_at: endsAt,
    state: 'available',
    capacity: input.capacity ?? slot?.capacity ?? service.capacity,
    room_url: input.roomUrl ?? null,
    confirmed_at: null,
    confirmed_by_user_id: null,
    canceled_at: null,
    cancel_reason: null,
    version: 1,
    created_at: now,
    updated_at: now,
  });
  return requireMeeting(db, site, by, Number(inserted));
}

// --- Staff actions (spec: Meeting state) ------------------------------------------------------------------------------

function invalidTransition(message: string): ConflictError {
  return new ConflictError(message, 'invalid_state_transition');
}

function confirmRefusal(meeting: MeetingRecord): ConflictError {
  if (meeting.kind === 'study_group') return invalidTransition(`Meeting ${meeting.id} is a study-group meeting (state ${meeting.state}); study-group sessions stay available and are never confirmed.`);
  return invalidTransition(`Meeting ${meeting.id} is ${meeting.state}; only an available consulting meeting can be confirmed.`);
}

/**
 * Staff confirms a consulting meeting: available → scheduled, recording when and by whom, and the room link when
 * given. The state is compared in the UPDATE itself, so of two concurrent actions exactly one applies.
 */
export async function confirmMeeting(db: Database, site: Site, by: Actor, meetingId: number, input: { roomUrl?: string | undefined }): Promise<MeetingWithSeats> {
  const current = await requireMeeting(db, site, by, meetingId);
  const urlProblem = webUrlProblem(input.roomUrl, '/roomUrl');
  if (urlProblem) throw new ValidationError('The confirmation is not valid.', [urlProblem]);
  if (current.kind !== 'consulting' || current.state !== 'available') throw confirmRefusal(current);
  const now = new Date();
  const updated = await db('meetings')
    .where({ id: meetingId, site_id: site.id, state: 'available' })
    .whereNull('study_group_id')
    .update({
      state: 'scheduled',
      confirmed_at: now,
      confirmed_by_user_id: actorIds(by).userId,
      confirmed_by_client_ref: actorIds(by).clientRef,
      ...(input.roomUrl === undefined ? {} : { room_url: input.roomUrl }),
      version: db.raw('version + 1'),
      updated_at: now,
    });
  if (updated === 0) throw confirmRefusal(await requireMeeting(db, site, by, meetingId));
  return requireMeeting(db, site, by, meetingId);
}

/** Cancels an available or scheduled meeting of either kind; seats are kept and members keep seeing it, canceled. */
export async function cancelMeeting(db: Database, site: Site, by: Actor, meetingId: number, input: { reason?: string | undefined }): Promise<MeetingWithSeats> {
  const current = await requireMeeting(db, site, by, meetingId);
  const refusal = (state: MeetingState): ConflictError => invalidTransition(`Meeting ${meetingId} is ${state}; only an available or scheduled meeting can be canceled.`);
  if (current.state === 'canceled') throw refusal(current.state);
  const now = new Date();
  const updated = await db('meetings')
    .where({ id: meetingId, site_id: site.id })
    .whereIn('state', ['available', 'scheduled'])
    .update({ state: 'canceled', canceled_at: now, cancel_reason: input.reason?.trim() || null, version: db.raw('version + 1'), updated_at: now });
  if (updated === 0) throw refusal((await requireMeeting(db, site, by, meetingId)).state);
  return requireMeeting(db, site, by, meetingId);
}
