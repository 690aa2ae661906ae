import { listEventRegistrations, type EventRegistrationRecord } from '../../member/events.js';
import { encodeNodeId } from '../../member/ids.js';
import { DEFAULT_LIMITS, SPEC_LIMITED } from '../../member/pagination.js';
import { dateTime, optionalDateTime } from '../format.js';
import { defineResource } from '../resource.js';
import type { ToolContext } from '../session.js';
import { listMyMeetings } from '../tools/member/my-meetings.js';
import { hasMemberFeatures } from '../../variant.js';
import { everyItem, JSON_MIME_TYPE, jsonContents, toolResult, TTL, type ToolPage } from './tool-content.js';

/** At most this many meetings and this many events in one read; `truncated` says when some were left out. */
export const SCHEDULE_RESOURCE_LIMIT = 100;
/** Registrations read (newest event first) while looking for upcoming ones: bounds a read for members with a long history. */
const REGISTRATION_PAGES = 10;

/** A meeting as list_my_meetings returns it (the fields the schedule reads). */
interface MeetingItem {
  startAt: string;
  endAt: string;
  service: { title: string } | null;
  studyGroup: { name: string } | null;
}

interface ScheduleItem {
  kind: 'meeting' | 'event';
  startAt: string;
  endAt: string | null;
  title: string;
  /** The meeting as list_my_meetings returns it. */
  meeting?: MeetingItem;
  /** The registration and its event, as the member GraphQL API's EventRegistration has them. */
  registration?: ReturnType<typeof registrationOutput>;
}

function registrationOutput(registration: EventRegistrationRecord) {
  const { event } = registration;
  return {
    id: encodeNodeId('EventRegistration', registration.id),
    state: registration.state,
    seats: registration.seats,
    ticketName: registration.ticketName,
    registeredAt: dateTime(registration.registeredAt),
    event: {
      id: encodeNodeId('Event', event.id),
      slug: event.slug,
      title: event.title,
      description: event.description,
      startAt: dateTime(event.startAt),
      endAt: optionalDateTime(event.endAt),
      timezone: event.timezone,
      isOnline: event.isOnline,
      venue: event.venue,
      url: event.url,
    },
  };
}

/** The member's upcoming meetings through list_my_meetings (`upcoming`: not started yet, canceled left out, soonest first). */
async function upcomingMeetings(context: ToolContext): Promise<{ items: ScheduleItem[]; truncated: boolean }> {
  // The meetings tool exists only where the member API has meetings.
  if (!hasMemberFeatures(context.session.services.variant, listMyMeetings)) return { items: [], truncated: false };
  const { items, truncated } = await everyItem(SCHEDULE_RESOURCE_LIMIT, async (cursor) => {
    const page = await toolResult<{ meetings: MeetingItem[] } & Omit<ToolPage<MeetingItem>, 'items'>>(listMyMeetings, { when: 'upcoming', first: SPEC_LIMITED.maxSize, ...(cursor === undefined ? {} : { cursor }) }, context);
    return { items: page.meetings, pageInfo: page.pageInfo, totalCount: page.totalCount };
  });
  return {
    items: items.map((meeting) => ({ kind: 'meeting', startAt: meeting.startAt, endAt: meeting.endAt, title: meeting.service?.title ?? meeting.studyGroup?.name ?? 'Consulting meeting', meeting })),
    truncated,
  };
}

/**
 * The events the member holds a registration for that have not started yet, canceled registrations left out, soonest
 * first. The registrations list is newest event first, so the upcoming ones are its head: read until the first event
 * that has started.
 */
async function upcomingEvents(context: ToolContext): Promise<{ items: ScheduleItem[]; truncated: boolean }> {
  const member = context.member();
  const now = member.now.getTime();
  const upcoming: EventRegistrationRecord[] = [];
  let after: string | null = null;
  let complete = false;
  for (let pages = 0; pages < REGISTRATION_PAGES && !complete; pages += 1) {
    const page = await listEventRegistrations(member, { first: DEFAULT_LIMITS.maxSize, after });
    const started = page.nodes.findIndex((registration) => registration.event.startAt.getTime() <= now);
    upcoming.push(...(started === -1 ? page.nodes : page.nodes.slice(0, started)));
    after = page.cursors.at(-1) ?? null;
    complete = started !== -1 || !page.hasNextPage || after === null;
  }
  const soonestFirst = upcoming.filter((registration) => registration.state !== 'CANCELED').reverse();
  return {
    items: soonestFirst.slice(0, SCHEDULE_RESOURCE_LIMIT).map((registration) => ({
      kind: 'event',
      startAt: dateTime(registration.event.startAt),
      endAt: optionalDateTime(registration.event.endAt),
      title: registration.event.title,
      registration: registrationOutput(registration),
    })),
    truncated: !complete || soonestFirst.length > SCHEDULE_RESOURCE_LIMIT,
  };
}

/**
 * `school://{host}/me/schedule`: what the signed-in member has coming up, soonest first: their consulting and
 * study-group meetings (where the school's member API has them) and the events they registered for. The URI names no
 * member: it is always the token's own.
 */
export const myScheduleResource = defineResource({
  name: 'my-schedule',
  title: 'My schedule',
  description: `What the signed-in member has coming up at this school, soonest first, everything that has not started yet: their consulting and study-group meetings where the school offers them (as the list_my_meetings tool gives them, canceled ones left out) and the events they registered for (canceled registrations left out). Each item has its kind (meeting or event), start, end and title. At most ${SCHEDULE_RESOURCE_LIMIT} meetings and ${SCHEDULE_RESOURCE_LIMIT} events. Needs a member token with account:read.`,
  mimeType: JSON_MIME_TYPE,
  path: '/me/schedule',
  scopes: ['account:read'],
  ttlMs: TTL.member,
  async read(context, uri) {
    const [meetings, events] = await Promise.all([upcomingMeetings(context), upcomingEvents(context)]);
    // A stable merge: by start, meetings before events starting at the same second.
    const items = [...meetings.items, ...events.items].sort((a, b) => Date.parse(a.startAt) - Date.parse(b.startAt));
    return jsonContents(uri, { items, truncated: meetings.truncated || events.truncated });
  },
});
