import type { Knex } from 'knex';
import { requireDate, toDate } from '../db/connection.js';
import type { Queryable } from '../db/queries.js';
import { selectColumns } from './columns.js';

/**
 * The `meetings` table: one concrete meeting of a consulting slot (service_id) or of a study group (study_group_id).
 * The member's own meetings, a service's reserved meetings and the operators' meetings are filters and projections of
 * these.
 */

/** Meeting states, spelled as the member API spells them (spec: Meeting `state`). */
export const MEETING_STATES = ['available', 'scheduled', 'canceled'] as const;
export type MeetingState = (typeof MEETING_STATES)[number];

/** A row as the drivers answer it (MySQL may answer numbers as strings; times come as Date, string or number). */
export interface MeetingRow {
  id: number | string;
  service_id: number | string | null;
  slot_id: number | string | null;
  study_group_id: number | string | null;
  state: string;
  starts_at: unknown;
  ends_at: unknown;
  capacity: number | string;
  room_url: string | null;
  confirmed_at: unknown;
  confirmed_by_user_id: number | string | null;
  confirmed_by_client_ref: number | string | null;
  canceled_at: unknown;
  cancel_reason: string | null;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

export const MEETING_COLUMNS = [
  'id',
  'service_id',
  'slot_id',
  'study_group_id',
  'state',
  'starts_at',
  'ends_at',
  'capacity',
  'room_url',
  'confirmed_at',
  'confirmed_by_user_id',
  'confirmed_by_client_ref',
  'canceled_at',
  'cancel_reason',
  'version',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof MeetingRow>;

export interface MeetingData {
  id: number;
  serviceId: number | null;
  slotId: number | null;
  /** Set for a study-group meeting (whose roster is its attendee list); null for a consulting meeting. */
  studyGroupId: number | null;
  state: MeetingState;
  startsAt: Date;
  endsAt: Date;
  capacity: number;
  /** The stored room link (members get it only while the meeting is live). */
  roomUrl: string | null;
  confirmedAt: Date | null;
  confirmedByUserId: number | null;
  confirmedByClientRef: number | string | null;
  canceledAt: Date | null;
  cancelReason: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Every column of `meetings` (or of the alias `table`), for a select. */
export function meetingColumns(table = 'meetings'): string[] {
  return selectColumns(table, MEETING_COLUMNS);
}

export function meetingState(stored: string): MeetingState {
  return (MEETING_STATES as readonly string[]).includes(stored) ? (stored as MeetingState) : 'available';
}

const optionalId = (value: number | string | null): number | null => (value === null ? null : Number(value));

export function meetingFromRow(row: MeetingRow): MeetingData {
  return {
    id: Number(row.id),
    serviceId: optionalId(row.service_id),
    slotId: optionalId(row.slot_id),
    studyGroupId: optionalId(row.study_group_id),
    state: meetingState(row.state),
    startsAt: requireDate(row.starts_at),
    endsAt: requireDate(row.ends_at),
    capacity: Number(row.capacity),
    roomUrl: row.room_url,
    confirmedAt: toDate(row.confirmed_at),
    confirmedByUserId: optionalId(row.confirmed_by_user_id),
    confirmedByClientRef: row.confirmed_by_client_ref,
    canceledAt: toDate(row.canceled_at),
    cancelReason: row.cancel_reason,
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

/** The meetings of one site: the base of every meetings query. */
export function meetingsOfSite(db: Queryable, siteId: number): Knex.QueryBuilder {
  return db('meetings').where('meetings.site_id', siteId);
}
