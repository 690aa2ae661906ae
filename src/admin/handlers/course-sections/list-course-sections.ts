import { listSections } from '../../../courses/curriculum.js';
import type { AdminHandler } from '../../api/types.js';
import { sectionRepresentation } from './representation.js';

/** GET /courses/{courseId}/sections (curriculum:read): one page of the course's sections, in syllabus order by default. */
export const listCourseSections: AdminHandler<'listCourseSections'> = async ({ db, site, path, query }) => {
  const page = await listSections(db, site.id, path.courseId, query);
  return { status: 200, body: { data: page.sections.map(sectionRepresentation), nextCursor: page.nextCursor } };
};
