import type { ToolContext } from '../session.js';
import { listMyMeetings } from '../tools/member/my-meetings.js';

/** One of the member's meetings exactly as list_my_meetings lists it (the fields the prompts read are named). */
export interface ListedMeeting extends Record<string, unknown> {
  id: string;
  state: string;
  startAt: string;
  service: { id: string; title: string } | null;
  studyGroup: { id: string; name: string } | null;
}

interface MeetingsPage {
  meetings: ListedMeeting[];
  pageInfo: { hasNextPage: boolean; nextCursor: string | null };
}

/**
 * The member's upcoming meetings, soonest first, read page by page through list_my_meetings itself, so a prompt
 * embeds a meeting with exactly the fields that tool gives (and its checks of them); stops at the first meeting
 * `enough` accepts.
 */
export async function upcomingMeetings(context: ToolContext, enough: (meeting: ListedMeeting) => boolean = () => false): Promise<ListedMeeting[]> {
  const meetings: ListedMeeting[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = (await listMyMeetings.structured({ when: 'upcoming', first: 50, ...(cursor === undefined ? {} : { cursor }) }, context)) as unknown as MeetingsPage;
    for (const meeting of page.meetings) {
      meetings.push(meeting);
      if (enough(meeting)) return meetings;
    }
    if (!page.pageInfo.hasNextPage || page.pageInfo.nextCursor === null) return meetings;
    cursor = page.pageInfo.nextCursor;
  }
}
