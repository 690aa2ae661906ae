import type { Knex } from 'knex';
import { meetingColumns, meetingFromRow, meetingsOfSite, type MeetingRow } from '../data/meetings.js';
import { ValidationError } from '../shared/errors.js';
import type { MemberContext } from './context.js';
import { MEETING_STATES, type MeetingFilter, type MeetingState } from './services.js';
import { encodeNodeId } from './ids.js';
import { fetchPage, pageWindow, SPEC_LIMITED, type Page, type PageArgs, type SortKey, withNodes } from './pagination.js';

/**
 * The viewer's own meetings (spec: "Consulting", `viewer.consultingMeetings`, variant A): meetings of consulting
 * slots where the viewer holds a seat that is not canceled, plus every meeting of every study group the viewer
 * belongs to (study-group meetings have no seat rows; the roster is the attendee list). Never another member's
 * booking. Plain domain functions over a MemberContext: GraphQL and MCP both call them.
 */

export type { MeetingFilter, MeetingState } from './services.js';
export type ViewerMeetingKind = 'CONSULTING_SLOT' | 'STUDY_GROUP';

export interface ViewerMeeting {
  /** Opaque `ConsultingMeeting` node id (never equal to the `ServiceMeeting` id of the same meeting). */
  id: string;
  dbId: number;
  kind: ViewerMeetingKind;
  /** Set for a consulting-slot meeting (null once the service is gone). */
  serviceId: number | null;
  /** Set for a study-group meeting. */
  studyGroupId: number | null;
  state: MeetingState;
  startsAt: Date;
  endsAt: Date;
  /** Start in unix seconds (the unit of the filter bounds). */
  startedAt: number;
  /**
   * The room link, only while the meeting is live (starts_at <= now < ends_at and not canceled); "" before it
   * starts, once it has ended, and when it was canceled (spec: "Consulting", `roomUrl`).
   */
  roomUrl: string;
}

export interface ViewerStudyGroup {
  /** Opaque `StudyGroup` id. */
  id: string;
  dbId: number;
  name: string;
}

/** Newest start first; the id breaks ties so the order is total (spec: "ordered newest start first"). */
const MEETING_ORDER: SortKey = [
  { column: 'meetings.starts_at', descending: true, time: true },
  { column: 'meetings.id', descending: true },
];

function checkFilter(filter: MeetingFilter | null | undefined): void {
  const after = filter?.startedAfter;
  const before = filter?.startedBefore;
  for (const [name, value] of [['startedAfter', after], ['startedBefore', before]] as const) {
    if (value !== null && value !== undefined && !Number.isInteger(value)) {
      throw new ValidationError(`filter.${name} must be a whole number of unix seconds`, [{ pointer: `/filter/${name}`, message: 'must be a whole number of unix seconds' }]);
    }
  }
  if (after !== null && after !== undefined && before !== null && before !== undefined && after > before) {
    throw new ValidationError('filter.startedAfter must not be later than filter.startedBefore', [{ pointer: '/filter/startedAfter', message: 'is later than filter.startedBefore' }]);
  }
  for (const state of filter?.state ?? []) {
    if (!(MEETING_STATES as readonly string[]).includes(state)) throw new ValidationError(`unknown meeting state "${String(state)}"`, [{ pointer: '/filter/state', message: `unknown meeting state "${String(state)}"` }]);
  }
}

/** The viewer's meetings at the context's site, as a base query (no order, no window). */
function viewerMeetingsQuery(ctx: MemberContext, filter: MeetingFilter | null | undefined): Knex.QueryBuilder {
  const { db } = ctx;
  const query = meetingsOfSite(db, ctx.site.id)
    .select(meetingColumns())
    .where((own) => {
      own
        .where((seat) => {
          seat.whereNull('meetings.study_group_id').whereExists(
            db('meeting_seats').select(db.raw('1')).whereRaw('meeting_seats.meeting_id = meetings.id').where('meeting_seats.user_id', ctx.userId).whereNull('meeting_seats.canceled_at'),
          );
        })
        .orWhere((group) => {
          group.whereNotNull('meetings.study_group_id').whereExists(
            db('study_group_members').select(db.raw('1')).whereRaw('study_group_members.study_group_id = meetings.study_group_id').where('study_group_members.user_id', ctx.userId),
          );
        });
    });
  // Bounds compare whole seconds, the unit of `startedAt`, so a boundary read from a page can be fed back in.
  if (filter?.startedAfter !== null && filter?.startedAfter !== undefined) query.where('meetings.starts_at', '>=', new Date((filter.startedAfter + 1) * 1000));
  if (filter?.startedBefore !== null && filter?.startedBefore !== undefined) query.where('meetings.starts_at', '<', new Date(filter.startedBefore * 1000));
  if (filter?.state !== null && filter?.state !== undefined) {
    if (filter.state.length === 0) query.whereRaw('1 = 0');
    else query.whereIn('meetings.state', [...new Set(filter.state)]);
  }
  return query;
}

/** A meeting is live from its start (inclusive) to its end (exclusive), unless canceled. */
export function isMeetingLive(meeting: { state: MeetingState; startsAt: Date; endsAt: Date }, now: Date): boolean {
  return meeting.state !== 'canceled' && meeting.startsAt.getTime() <= now.getTime() && now.getTime() < meeting.endsAt.getTime();
}

function toViewerMeeting(ctx: MemberContext, row: MeetingRow): ViewerMeeting {
  const meeting = meetingFromRow(row);
  const { id: dbId, studyGroupId, state, startsAt, endsAt } = meeting;
  const live = isMeetingLive(meeting, ctx.now);
  return {
    id: encodeNodeId('ConsultingMeeting', dbId),
    dbId,
    kind: studyGroupId === null ? 'CONSULTING_SLOT' : 'STUDY_GROUP',
    serviceId: studyGroupId === null ? meeting.serviceId : null,
    studyGroupId,
    state,
    startsAt,
    endsAt,
    startedAt: Math.floor(startsAt.getTime() / 1000),
    roomUrl: live ? (meeting.roomUrl ?? '') : '',
  };
}

/**
 * One page of the viewer's meetings, newest start first, at most 50 (spec: "Limits"). `last: 1` over a
 * `startedAfter: <now>` window is the next upcoming meeting. Canceled meetings stay listed.
 * Throws ValidationError for bad window arguments, a non-integer bound or startedAfter > startedBefore.
 */
export async function listViewerMeetings(ctx: MemberContext, args: PageArgs & { filter?: MeetingFilter | null }): Promise<Page<ViewerMeeting>> {
  checkFilter(args.filter);
  const window = pageWindow(args, SPEC_LIMITED, MEETING_ORDER);
  const page = await fetchPage<MeetingRow & Record<string, unknown>>(() => viewerMeetingsQuery(ctx, args.filter), MEETING_ORDER, window);
  return withNodes(page, page.nodes.map((row) => toViewerMeeting(ctx, row)));
}

/** Counts per key from a `select key, count(*) group by key` over `keys`; 0 for keys without rows. */
async function countsBy(keys: readonly number[], query: () => Knex.QueryBuilder, keyColumn: string): Promise<number[]> {
  const rows = (await query().whereIn(keyColumn, [...new Set(keys)]).groupBy(keyColumn).select({ key: keyColumn }).count({ total: '*' })) as Array<{ key: number | string; total: number | string }>;
  const counts = new Map(rows.map((row) => [Number(row.key), Number(row.total)]));
  return keys.map((key) => counts.get(key) ?? 0);
}

/**
 * Attendees of one of the viewer's meetings ("catalogue arithmetic"): seats not canceled for a consulting-slot
 * meeting, the roster size for a study-group meeting. Batched per request: one query per kind.
 */
export async function meetingAttendeesCount(ctx: MemberContext, meeting: Pick<ViewerMeeting, 'dbId' | 'studyGroupId'>): Promise<number> {
  if (meeting.studyGroupId !== null) {
    return ctx
      .loader<number, number>('viewerMeetings.rosterSize', (groupIds) => countsBy(groupIds, () => ctx.db('study_group_members'), 'study_group_members.study_group_id'))
      .load(meeting.studyGroupId);
  }
  return ctx
    .loader<number, number>('viewerMeetings.seatCount', (meetingIds) => countsBy(meetingIds, () => ctx.db('meeting_seats').whereNull('meeting_seats.canceled_at'), 'meeting_seats.meeting_id'))
    .load(meeting.dbId);
}

/** The study group of one of the viewer's study-group meetings, batched per request; null if it is gone. */
export async function viewerStudyGroup(ctx: MemberContext, studyGroupId: number): Promise<ViewerStudyGroup | null> {
  return ctx
    .loader<number, ViewerStudyGroup | null>('viewerMeetings.studyGroup', async (ids) => {
      const rows = (await ctx.db('study_groups').where('site_id', ctx.site.id).whereIn('id', [...new Set(ids)]).select('id', 'name')) as Array<{ id: number | string; name: string }>;
      const byId = new Map(rows.map((row) => [Number(row.id), row]));
      return ids.map((id) => {
        const row = byId.get(id);
        return row ? { id: encodeNodeId('StudyGroup', id), dbId: id, name: row.name } : null;
      });
    })
    .load(studyGroupId);
}
