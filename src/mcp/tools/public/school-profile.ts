import { z } from 'zod';
import { schoolProfile } from '../../../catalog/school.js';
import { defineTool, READ_ONLY } from '../../tool.js';

export const getSchoolProfile = defineTool({
  name: 'get_school_profile',
  title: 'School profile',
  description:
    'About this school (the site this MCP endpoint belongs to): name, description, contact e-mail, time zone and currency, lecturers, and how many published courses, upcoming public events and consulting services it offers. Start here to introduce the school; then use search_courses, list_upcoming_events or list_consulting_services for details. Public: no sign-in needed.',
  scopes: [],
  input: z.object({}),
  output: z.object({
    name: z.string(),
    description: z.string().nullable(),
    url: z.string().describe("The school site's origin."),
    timezone: z.string().describe('IANA time zone the school gives times in.'),
    defaultCurrency: z.string().describe('ISO 4217 currency of its prices.'),
    contactEmail: z.string().nullable(),
    logoUrl: z.string().nullable(),
    primaryColor: z.string().nullable(),
    accentColor: z.string().nullable(),
    lecturers: z.array(z.object({ name: z.string(), bio: z.string().nullable(), avatarUrl: z.string().nullable() })),
    catalogue: z.object({
      publishedCourses: z.number().int(),
      upcomingEvents: z.number().int(),
      consultingServices: z.number().int(),
    }),
    agentGuide: z.string().describe('How an agent signs a member in to get the member tools (auth.md).'),
  }),
  annotations: READ_ONLY,
  async run(_input, context) {
    return Object.assign({}, await schoolProfile(context.catalog()), { agentGuide: `${context.site.origin}/auth.md` });
  },
});
