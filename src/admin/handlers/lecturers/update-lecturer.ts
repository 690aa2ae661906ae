import { updateLecturer as updateSiteLecturer } from '../../../courses/lecturers.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { lecturerRepresentation } from './representation.js';

/** PATCH /lecturers/{lecturerId} (lecturers:write): merge patch, applied only at the version If-Match names. */
export const updateLecturer: AdminHandler<'updateLecturer'> = async ({ db, site, path, headers, body }) => {
  const lecturer = await updateSiteLecturer(db, site.id, path.lecturerId, { displayName: body.displayName, bio: body.bio, avatarUrl: body.avatarUrl }, versionFromIfMatch(headers['If-Match']));
  return { status: 200, body: lecturerRepresentation(lecturer), headers: { ETag: etagOf(lecturer.version) } };
};
