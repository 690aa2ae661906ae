import { requireLecture } from '../../../courses/curriculum.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { lectureRepresentation } from './representation.js';

/** GET /courses/{courseId}/lectures/{lectureId} (curriculum:read): one lecture of a course of this site. */
export const getLecture: AdminHandler<'getLecture'> = async ({ db, site, path }) => {
  const lecture = await requireLecture(db, site.id, path.courseId, path.lectureId);
  return { status: 200, body: lectureRepresentation(lecture), headers: { ETag: etagOf(lecture.version) } };
};
