import { MY_COURSES_HTML } from '../views/my-courses.js';
import { defineViewResource } from '../views/view-resource.js';

/** `ui://{host}/views/my-courses`: the interactive view (MCP Apps) of list_my_courses. */
export const myCoursesView = defineViewResource({
  name: 'my-courses-view',
  title: 'My courses (interactive view)',
  description:
    "An interactive view of the list_my_courses result for hosts that show MCP Apps: the signed-in member's courses with progress, each opening its lectures (through get_my_course_syllabus). HTML only; the data comes from the tool result the host hands it. Needs a member token with account:read.",
  path: '/views/my-courses',
  html: MY_COURSES_HTML,
});
