import { progressSummary, requireEnrollment } from '../../../people/enrollments.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { withProgress } from './representation.js';

/** GET /enrollments/{enrollmentId} (students:read): the enrollment with the member API's progress numbers. */
export const getEnrollment: AdminHandler<'getEnrollment'> = async ({ db, site, path }) => {
  const enrollment = await requireEnrollment(db, site.id, path.enrollmentId);
  const progress = await progressSummary(db, site, enrollment);
  return { status: 200, body: withProgress(enrollment, progress), headers: { ETag: etagOf(enrollment.version) } };
};
