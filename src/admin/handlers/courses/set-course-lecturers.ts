import { setCourseLecturers as setLecturersOfCourse } from '../../../courses/courses.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { courseRepresentation } from './representation.js';

/** PUT /courses/{courseId}/lecturers (courses:write): the whole ordered list of the course's lecturers. */
export const setCourseLecturers: AdminHandler<'setCourseLecturers'> = async ({ db, site, path, body }) => {
  const course = await setLecturersOfCourse(db, site.id, path.courseId, body.lecturerIds);
  return { status: 200, body: courseRepresentation(course), headers: { ETag: etagOf(course.version) } };
};
