import { createLecturer as createSiteLecturer } from '../../../courses/lecturers.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { lecturerRepresentation, lecturerUrl } from './representation.js';

/** POST /lecturers (lecturers:write): a profile for a person with a role here; grants the `lecturer` role. */
export const createLecturer: AdminHandler<'createLecturer'> = async ({ db, site, baseUrl, body }) => {
  const lecturer = await createSiteLecturer(db, site.id, { userId: body.userId, displayName: body.displayName, bio: body.bio ?? null, avatarUrl: body.avatarUrl ?? null });
  return { status: 201, body: lecturerRepresentation(lecturer), headers: { ETag: etagOf(lecturer.version), Location: lecturerUrl(baseUrl, lecturer.id) } };
};
