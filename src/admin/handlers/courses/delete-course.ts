import { deleteCourse as deleteSiteCourse } from '../../../courses/courses.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /courses/{courseId} (courses:write): the course and its curriculum; 409 while enrollments or orders refer to it. */
export const deleteCourse: AdminHandler<'deleteCourse'> = async ({ db, site, path, log }) => {
  await deleteSiteCourse(db, site.id, path.courseId);
  log.info({ event: 'course_deleted', courseId: path.courseId }, 'course deleted');
  return { status: 204 };
};
