import { requireCourse } from '../../../courses/courses.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { courseRepresentation } from './representation.js';

/** GET /courses/{courseId} (courses:read): one course of this site (404 for any other site's). */
export const getCourse: AdminHandler<'getCourse'> = async ({ db, site, path }) => {
  const course = await requireCourse(db, site.id, path.courseId);
  return { status: 200, body: courseRepresentation(course), headers: { ETag: etagOf(course.version) } };
};
