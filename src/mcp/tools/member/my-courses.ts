import { z } from 'zod';
import { lastWatched, listEnrolledCourses } from '../../../member/courses.js';
import { DEFAULT_LIMITS } from '../../../member/pagination.js';
import { progressSummary } from '../../../member/progress-summaries.js';
import { forwardPageInfo } from '../../format.js';
import { myCoursesView } from '../../resources/my-courses-view.js';
import { pageInfo, pageInput, totalCount } from '../../schemas.js';
import { defineTool, READ_ONLY } from '../../tool.js';
import { viewLink } from '../../views/view-resource.js';
import { enrolledCourseFields, enrolledCourseOutput, lastWatchedOutput, lastWatchedOutputOf, progressOutput } from './course-output.js';

export const listMyCourses = defineTool({
  name: 'list_my_courses',
  title: 'My courses',
  description:
    "The courses the signed-in member is enrolled in at this school, newest enrollment first, each with the member's progress (lectures completed, read and unread, completion rate) and where they stopped watching. Courses whose access has ended are included (accessEnded: true). For one course's lectures with per-lecture state, use get_my_course_syllabus. Needs a member token with account:read.",
  scopes: ['account:read'],
  input: z.object(pageInput(DEFAULT_LIMITS.defaultSize, DEFAULT_LIMITS.maxSize)),
  output: z.object({
    courses: z.array(z.object(enrolledCourseFields).extend({ progress: progressOutput, lastWatchedLecture: lastWatchedOutput })),
    pageInfo,
    totalCount,
  }),
  annotations: READ_ONLY,
  // Hosts that show MCP Apps draw the result with this view; other clients get the same structured content.
  _meta: viewLink(myCoursesView),
  async run(input, context) {
    const member = context.member();
    const page = await listEnrolledCourses(member, { first: input.first ?? null, after: input.cursor ?? null });
    // Every course's progress comes from one grouped query over the page's courses (counts, not lecture rows).
    const courses = await Promise.all(
      page.nodes.map(async (course) =>
        Object.assign(enrolledCourseOutput(course, member.now), {
          progress: await progressSummary(member, course),
          lastWatchedLecture: lastWatchedOutputOf(lastWatched(course)),
        }),
      ),
    );
    return {
      courses,
      pageInfo: forwardPageInfo(page),
      totalCount: page.totalCount,
    };
  },
});
