import { updateSection } from '../../../courses/curriculum.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { sectionRepresentation } from './representation.js';

/** PATCH /courses/{courseId}/sections/{sectionId} (curriculum:write): rename and/or move, at the If-Match version. */
export const updateCourseSection: AdminHandler<'updateCourseSection'> = async ({ db, site, path, headers, body }) => {
  const section = await updateSection(db, site.id, path.courseId, path.sectionId, { title: body.title, position: body.position }, versionFromIfMatch(headers['If-Match']));
  return { status: 200, body: sectionRepresentation(section), headers: { ETag: etagOf(section.version) } };
};
