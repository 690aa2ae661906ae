import { deleteSection } from '../../../courses/curriculum.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /courses/{courseId}/sections/{sectionId} (curriculum:write): an empty section only (409 `section_not_empty`). */
export const deleteCourseSection: AdminHandler<'deleteCourseSection'> = async ({ db, site, path }) => {
  await deleteSection(db, site.id, path.courseId, path.sectionId);
  return { status: 204 };
};
