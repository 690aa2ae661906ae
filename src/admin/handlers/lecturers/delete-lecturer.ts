import { deleteLecturer as deleteSiteLecturer } from '../../../courses/lecturers.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /lecturers/{lecturerId} (lecturers:write): refused while the lecturer is assigned to courses. */
export const deleteLecturer: AdminHandler<'deleteLecturer'> = async ({ db, site, path }) => {
  await deleteSiteLecturer(db, site.id, path.lecturerId);
  return { status: 204 };
};
