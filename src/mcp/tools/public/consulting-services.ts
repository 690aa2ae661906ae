import { z } from 'zod';
import { listOfferedConsultingServices } from '../../../catalog/consulting.js';
import { CATALOGUE_LIMITS } from '../../../catalog/context.js';
import { encodeNodeId } from '../../../member/ids.js';
import { WEEKDAYS } from '../../../member/services.js';
import { forwardPageInfo } from '../../format.js';
import { pageInfo, pageInput, price, totalCount } from '../../schemas.js';
import { defineTool, READ_ONLY } from '../../tool.js';

export const listConsultingServices = defineTool({
  name: 'list_consulting_services',
  title: 'Consulting services on offer',
  description:
    'The consulting services the school offers (one-to-one reviews, office hours, …), by title: what each is, how long a meeting lasts, seats per meeting, price, the courses it goes with, and its recurring weekly availability (weekday and local start time in a named time zone). A catalogue, not anyone\'s bookings. Public: no sign-in needed. For the signed-in member\'s own booked meetings use list_my_meetings.',
  scopes: [],
  input: z.object(pageInput(CATALOGUE_LIMITS.defaultSize, CATALOGUE_LIMITS.maxSize)),
  output: z.object({
    services: z.array(
      z.object({
        id: z.string().describe('Opaque consulting service id.'),
        title: z.string(),
        description: z.string().nullable(),
        durationMinutes: z.number().int().describe('Length of one meeting, minutes.'),
        capacity: z.number().int().describe('Seats per meeting.'),
        price,
        courses: z.array(z.object({ id: z.string(), slug: z.string(), title: z.string() })).describe('Published courses the service is offered with.'),
        weeklySlots: z
          .array(
            z.object({
              weekday: z.enum(WEEKDAYS),
              startTime: z.string().describe('Local start time, 24-hour HH:MM, in `timezone`.'),
              durationMinutes: z.number().int(),
              timezone: z.string().describe('IANA time zone of weekday and startTime.'),
              capacity: z.number().int(),
            }),
          )
          .describe('Recurring weekly availability, Monday first.'),
      }),
    ),
    pageInfo,
    totalCount,
  }),
  annotations: READ_ONLY,
  async run(input, context) {
    const page = await listOfferedConsultingServices(context.catalog(), { first: input.first ?? null, after: input.cursor ?? null });
    return {
      services: page.nodes.map((service) =>
        Object.assign({}, service, {
          id: encodeNodeId('ConsultingService', service.id),
          courses: service.courses.map((course) => Object.assign({}, course, { id: encodeNodeId('Course', course.id) })),
        }),
      ),
      pageInfo: forwardPageInfo(page),
      totalCount: page.totalCount,
    };
  },
});
