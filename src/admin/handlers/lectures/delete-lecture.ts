import { deleteLecture as deleteCourseLecture } from '../../../courses/curriculum.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /courses/{courseId}/lectures/{lectureId} (curriculum:write): refused while members have progress on it. */
export const deleteLecture: AdminHandler<'deleteLecture'> = async ({ db, site, path }) => {
  await deleteCourseLecture(db, site.id, path.courseId, path.lectureId);
  return { status: 204 };
};
