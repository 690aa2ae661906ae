import { z } from 'zod';
import type { MemberContext } from '../../../member/context.js';
import { encodeNodeId } from '../../../member/ids.js';
import { isMeetingLive, listViewerMeetings, meetingAttendeesCount, viewerStudyGroup, type ViewerMeeting } from '../../../member/meetings.js';
import { SPEC_LIMITED, type Page } from '../../../member/pagination.js';
import { consultingServiceById, MEETING_STATES } from '../../../member/services.js';
import { dateTime as formatDateTime, forwardPageInfo, type PageInfo } from '../../format.js';
import { dateTime, pageInfo, pageInput, totalCount } from '../../schemas.js';
import { defineTool, READ_ONLY } from '../../tool.js';

/**
 * The member's own meetings (spec: `viewer.consultingMeetings`, variant A) through the member domain layer: consulting
 * slots where they hold a seat and their study groups' meetings, never anyone else's booking.
 *
 * `upcoming`: starting after now, canceled ones left out (spec: "Filter it out to show an upcoming schedule"), soonest
 * first; paged from the end of the newest-first list (`last`/`before`, as the spec's `last: 1` advice does).
 * `past`: started by now, every state, most recent first. A meeting in progress started in the past: it is the first
 * item of `past`, with `isLive: true` and its room link.
 */
async function upcomingPage(member: MemberContext, size: number | null, cursor: string | null, nowSeconds: number): Promise<{ page: Page<ViewerMeeting>; info: PageInfo; nodes: ViewerMeeting[] }> {
  const page = await listViewerMeetings(member, { last: size ?? SPEC_LIMITED.defaultSize, before: cursor, filter: { startedAfter: nowSeconds, state: ['available', 'scheduled'] } });
  // Newest start first within the page; the later meetings are "before" the first one of it.
  const nodes = [...page.nodes].reverse();
  const info: PageInfo = { hasNextPage: page.hasPreviousPage, nextCursor: page.hasPreviousPage ? (page.cursors[0] ?? null) : null };
  return { page, info, nodes };
}

export const listMyMeetings = defineTool({
  name: 'list_my_meetings',
  title: 'My consulting meetings',
  description:
    "The signed-in member's own consulting meetings: the consulting slots they booked a seat on and the meetings of the study groups they belong to (never other people's bookings). when='upcoming' (default) gives meetings that have not started yet, soonest first, canceled ones left out; when='past' gives meetings that have started, most recent first, canceled ones included — a meeting in progress right now is the first past one, with isLive: true and its roomUrl. roomUrl is only set while a meeting is live. Reserving a seat does not confirm a meeting: state 'scheduled' means staff confirmed it, 'available' that it is not confirmed yet. Needs a member token with account:read.",
  scopes: ['account:read'],
  needs: ['consultingMeetings'],
  input: z.object({
    when: z.enum(['upcoming', 'past']).default('upcoming').describe('upcoming: not started yet, soonest first, without canceled ones. past: already started, most recent first.'),
    ...pageInput(SPEC_LIMITED.defaultSize, SPEC_LIMITED.maxSize),
  }),
  output: z.object({
    meetings: z.array(
      z.object({
        id: z.string().describe('Opaque meeting id (the member GraphQL API\'s ConsultingMeeting id).'),
        kind: z.enum(['CONSULTING_SLOT', 'STUDY_GROUP']),
        state: z.enum(MEETING_STATES).describe('available (not confirmed), scheduled (confirmed by staff) or canceled.'),
        startAt: dateTime,
        endAt: dateTime,
        startedAt: z.number().int().describe('Start in unix seconds.'),
        isLive: z.boolean().describe('Under way right now (started, not ended, not canceled).'),
        roomUrl: z.string().describe('The meeting room link while the meeting is live; "" otherwise.'),
        attendeesCount: z.number().int().describe('Seats taken on a consulting slot; members of the study group.'),
        service: z.object({ id: z.string(), title: z.string() }).nullable().describe('The consulting service of a consulting-slot meeting.'),
        studyGroup: z.object({ id: z.string(), name: z.string() }).nullable().describe('The study group of a study-group meeting.'),
      }),
    ),
    pageInfo,
    totalCount: totalCount.describe('Meetings in the whole upcoming or past list.'),
  }),
  annotations: READ_ONLY,
  async run(input, context) {
    const member = context.member();
    const nowSeconds = Math.floor(member.now.getTime() / 1000);
    let nodes: ViewerMeeting[];
    let info: PageInfo;
    let total: number;
    if (input.when === 'upcoming') {
      const upcoming = await upcomingPage(member, input.first ?? null, input.cursor ?? null, nowSeconds);
      ({ nodes, info } = upcoming);
      total = upcoming.page.totalCount;
    } else {
      // Started by now: strictly before the next whole second, so upcoming and past split the list without a gap.
      const page = await listViewerMeetings(member, { first: input.first ?? null, after: input.cursor ?? null, filter: { startedBefore: nowSeconds + 1 } });
      nodes = page.nodes;
      info = forwardPageInfo(page);
      total = page.totalCount;
    }
    const meetings = await Promise.all(
      nodes.map(async (meeting) => {
        const [attendeesCount, service, group] = await Promise.all([
          meetingAttendeesCount(member, meeting),
          meeting.serviceId === null ? null : consultingServiceById(member, meeting.serviceId),
          meeting.studyGroupId === null ? null : viewerStudyGroup(member, meeting.studyGroupId),
        ]);
        return {
          id: meeting.id,
          kind: meeting.kind,
          state: meeting.state,
          startAt: formatDateTime(meeting.startsAt),
          endAt: formatDateTime(meeting.endsAt),
          startedAt: meeting.startedAt,
          isLive: isMeetingLive(meeting, member.now),
          roomUrl: meeting.roomUrl,
          attendeesCount,
          service: service === null ? null : { id: encodeNodeId('ConsultingService', service.id), title: service.title },
          studyGroup: group === null ? null : { id: group.id, name: group.name },
        };
      }),
    );
    return { meetings, pageInfo: info, totalCount: total };
  },
});
