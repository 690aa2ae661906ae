import { deleteEnrollment as deleteSiteEnrollment } from '../../../people/enrollments.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /enrollments/{enrollmentId} (students:write): access ends now; the member's lecture progress is kept. */
export const deleteEnrollment: AdminHandler<'deleteEnrollment'> = async ({ db, site, path, log }) => {
  await deleteSiteEnrollment(db, site.id, path.enrollmentId);
  log.info({ event: 'enrollment_deleted', enrollmentId: path.enrollmentId }, 'enrollment deleted');
  return { status: 204 };
};
