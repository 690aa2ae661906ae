import { z } from 'zod';
import { CATALOGUE_LIMITS } from '../../../catalog/context.js';
import { listUpcomingPublicEvents } from '../../../catalog/events.js';
import { encodeNodeId } from '../../../member/ids.js';
import { dateTime as formatDateTime, forwardPageInfo } from '../../format.js';
import { dateTime, pageInfo, pageInput, price, totalCount } from '../../schemas.js';
import { defineTool, READ_ONLY } from '../../tool.js';

export const listUpcomingEvents = defineTool({
  name: 'list_upcoming_events',
  title: 'Upcoming public events',
  description:
    "The school's upcoming public events (talks, meetups, live sessions), soonest first; an event already under way is included until it ends. Each has its time, time zone, whether it is online or where it takes place, price and places left. Public: no sign-in needed.",
  scopes: [],
  input: z.object(pageInput(CATALOGUE_LIMITS.defaultSize, CATALOGUE_LIMITS.maxSize)),
  output: z.object({
    events: z.array(
      z.object({
        id: z.string().describe('Opaque event id.'),
        slug: z.string(),
        title: z.string(),
        description: z.string().nullable(),
        startAt: dateTime,
        endAt: dateTime,
        timezone: z.string().describe('IANA time zone the event is announced in.'),
        isOnline: z.boolean(),
        venue: z.string().nullable().describe('Where an in-person event takes place; null for online events.'),
        url: z.string().describe("The event's page, where people register."),
        capacity: z.number().int().nullable().describe('Places offered; null when unlimited.'),
        spotsLeft: z.number().int().nullable().describe('Places still free; null when unlimited.'),
        price,
      }),
    ),
    pageInfo,
    totalCount,
  }),
  annotations: READ_ONLY,
  async run(input, context) {
    const page = await listUpcomingPublicEvents(context.catalog(), { first: input.first ?? null, after: input.cursor ?? null });
    return {
      events: page.nodes.map((event) => Object.assign({}, event, { id: encodeNodeId('Event', event.id), startAt: formatDateTime(event.startAt), endAt: formatDateTime(event.endAt) })),
      pageInfo: forwardPageInfo(page),
      totalCount: page.totalCount,
    };
  },
});
