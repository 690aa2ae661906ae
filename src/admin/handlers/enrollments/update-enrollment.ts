import { progressSummary, updateEnrollment as updateSiteEnrollment } from '../../../people/enrollments.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { withProgress } from './representation.js';

/** PATCH /enrollments/{enrollmentId} (students:write): merge patch of the access, at the version If-Match names. */
export const updateEnrollment: AdminHandler<'updateEnrollment'> = async ({ db, site, path, headers, body }) => {
  const enrollment = await updateSiteEnrollment(db, site.id, path.enrollmentId, { expiresAt: body.expiresAt, hasLifetimeAccess: body.hasLifetimeAccess }, versionFromIfMatch(headers['If-Match']));
  const progress = await progressSummary(db, site, enrollment);
  return { status: 200, body: withProgress(enrollment, progress), headers: { ETag: etagOf(enrollment.version) } };
};
