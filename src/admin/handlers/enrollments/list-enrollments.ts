import { listEnrollments as listSiteEnrollments } from '../../../people/enrollments.js';
import type { AdminHandler } from '../../api/types.js';
import { enrollmentRepresentation } from './representation.js';

/** GET /enrollments (students:read): the site's enrollments, filtered by course, member and access; keyset-paginated. */
export const listEnrollments: AdminHandler<'listEnrollments'> = async ({ db, site, query }) => {
  const page = await listSiteEnrollments(db, site.id, { courseId: query.courseId, userId: query.userId, access: query.access }, query);
  return { status: 200, body: { data: page.enrollments.map(enrollmentRepresentation), nextCursor: page.nextCursor } };
};
