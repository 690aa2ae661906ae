import { enroll, progressSummary } from '../../../people/enrollments.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { withProgress } from './representation.js';

/** POST /enrollments (students:write): enrolls a member in a course of this site, until a date or for life. */
export const createEnrollment: AdminHandler<'createEnrollment'> = async ({ db, site, baseUrl, body }) => {
  const enrollment = await enroll(db, site.id, { userId: body.userId, courseId: body.courseId, expiresAt: body.expiresAt, hasLifetimeAccess: body.hasLifetimeAccess });
  const progress = await progressSummary(db, site, enrollment);
  return { status: 201, body: withProgress(enrollment, progress), headers: { ETag: etagOf(enrollment.version), Location: `${baseUrl}/enrollments/${enrollment.id}` } };
};
