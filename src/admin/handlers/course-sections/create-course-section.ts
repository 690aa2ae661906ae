import { createSection } from '../../../courses/curriculum.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { sectionRepresentation, sectionUrl } from './representation.js';

/** POST /courses/{courseId}/sections (curriculum:write): a new section, last or at `position`. */
export const createCourseSection: AdminHandler<'createCourseSection'> = async ({ db, site, baseUrl, path, body }) => {
  const section = await createSection(db, site.id, path.courseId, { title: body.title, position: body.position });
  return { status: 201, body: sectionRepresentation(section), headers: { ETag: etagOf(section.version), Location: sectionUrl(baseUrl, section) } };
};
