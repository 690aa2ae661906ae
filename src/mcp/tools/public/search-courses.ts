import { z } from 'zod';
import { CATALOGUE_LIMITS } from '../../../catalog/context.js';
import { listPublicCourses } from '../../../catalog/courses.js';
import { forwardPageInfo } from '../../format.js';
import { pageInfo, pageInput, totalCount } from '../../schemas.js';
import { defineTool, READ_ONLY } from '../../tool.js';
import { publicCourseOutput, toPublicCourseOutput } from './course-output.js';

export const searchCourses = defineTool({
  name: 'search_courses',
  title: 'Search the course catalogue',
  description:
    "Search or list the school's public course catalogue (published courses only), by title. With `query`, returns the courses whose title or description contains every word of it (case-insensitive); without it, lists every course. Each course has its price, lecturers, number of sections and lectures and total length. For one course's chapters and lectures use get_course_syllabus. Public: no sign-in needed. For the courses the signed-in member is enrolled in, use list_my_courses instead.",
  scopes: [],
  input: z.object({
    query: z.string().max(200).optional().describe('Words to look for in course titles and descriptions, e.g. "typography". Omit to list all courses.'),
    ...pageInput(CATALOGUE_LIMITS.defaultSize, CATALOGUE_LIMITS.maxSize),
  }),
  output: z.object({ courses: z.array(publicCourseOutput), pageInfo, totalCount }),
  annotations: READ_ONLY,
  async run(input, context) {
    const page = await listPublicCourses(context.catalog(), { query: input.query ?? null, first: input.first ?? null, after: input.cursor ?? null });
    return { courses: page.nodes.map(toPublicCourseOutput), pageInfo: forwardPageInfo(page), totalCount: page.totalCount };
  },
});
