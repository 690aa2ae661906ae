import { createLecture as createCourseLecture } from '../../../courses/curriculum.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { lectureRepresentation, lectureUrl } from './representation.js';

/** POST /courses/{courseId}/lectures (curriculum:write): a new lecture in a section of the course, last or at `position`. */
export const createLecture: AdminHandler<'createLecture'> = async ({ db, site, baseUrl, path, body }) => {
  const lecture = await createCourseLecture(db, site.id, path.courseId, {
    sectionId: body.sectionId,
    position: body.position,
    title: body.title,
    kind: body.kind ?? 'video',
    durationSeconds: body.durationSeconds ?? 0,
    locked: body.locked ?? false,
    unlockAt: body.unlockAt === undefined || body.unlockAt === null ? null : new Date(body.unlockAt),
    isPreview: body.isPreview ?? false,
  });
  return { status: 201, body: lectureRepresentation(lecture), headers: { ETag: etagOf(lecture.version), Location: lectureUrl(baseUrl, lecture) } };
};
