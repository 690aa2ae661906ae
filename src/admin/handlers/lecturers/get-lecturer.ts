import { requireLecturer } from '../../../courses/lecturers.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { lecturerRepresentation } from './representation.js';

/** GET /lecturers/{lecturerId} (lecturers:read): one profile of this site with the courses it teaches. */
export const getLecturer: AdminHandler<'getLecturer'> = async ({ db, site, path }) => {
  const lecturer = await requireLecturer(db, site.id, path.lecturerId);
  return { status: 200, body: lecturerRepresentation(lecturer), headers: { ETag: etagOf(lecturer.version) } };
};
