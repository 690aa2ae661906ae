import { MY_COURSE_SYLLABUS_HTML } from '../views/my-course-syllabus.js';
import { defineViewResource } from '../views/view-resource.js';

/** `ui://{host}/views/my-course-syllabus`: the interactive view (MCP Apps) of get_my_course_syllabus. */
export const myCourseSyllabusView = defineViewResource({
  name: 'my-course-syllabus-view',
  title: 'My progress in a course (interactive view)',
  description:
    "An interactive view of the get_my_course_syllabus result for hosts that show MCP Apps: one course's sections and lectures with the signed-in member's state of each, the next lecture and where they stopped watching. HTML only; the data comes from the tool result the host hands it. Needs a member token with account:read.",
  path: '/views/my-course-syllabus',
  html: MY_COURSE_SYLLABUS_HTML,
});
