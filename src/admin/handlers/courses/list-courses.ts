import { listCourses as listSiteCourses } from '../../../courses/courses.js';
import type { AdminHandler } from '../../api/types.js';
import { courseRepresentation } from './representation.js';

/** GET /courses (courses:read): one page of the site's courses with their lecturers and counts. */
export const listCourses: AdminHandler<'listCourses'> = async ({ db, site, query }) => {
  const page = await listSiteCourses(db, site.id, { status: query.status, q: query.q }, query);
  return { status: 200, body: { data: page.courses.map(courseRepresentation), nextCursor: page.nextCursor } };
};
