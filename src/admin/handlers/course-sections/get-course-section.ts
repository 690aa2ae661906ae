import { requireSection } from '../../../courses/curriculum.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { sectionRepresentation } from './representation.js';

/** GET /courses/{courseId}/sections/{sectionId} (curriculum:read): one section of a course of this site. */
export const getCourseSection: AdminHandler<'getCourseSection'> = async ({ db, site, path }) => {
  const section = await requireSection(db, site.id, path.courseId, path.sectionId);
  return { status: 200, body: sectionRepresentation(section), headers: { ETag: etagOf(section.version) } };
};
