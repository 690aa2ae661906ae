import { updateLecture as updateCourseLecture } from '../../../courses/curriculum.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { lectureRepresentation } from './representation.js';

/** PATCH /courses/{courseId}/lectures/{lectureId} (curriculum:write): merge patch incl. moves, at the If-Match version. */
export const updateLecture: AdminHandler<'updateLecture'> = async ({ db, site, path, headers, body }) => {
  const lecture = await updateCourseLecture(
    db,
    site.id,
    path.courseId,
    path.lectureId,
    {
      sectionId: body.sectionId,
      position: body.position,
      title: body.title,
      kind: body.kind,
      durationSeconds: body.durationSeconds,
      locked: body.locked,
      ...(body.unlockAt === undefined ? {} : { unlockAt: body.unlockAt === null ? null : new Date(body.unlockAt) }),
      isPreview: body.isPreview,
    },
    versionFromIfMatch(headers['If-Match']),
  );
  return { status: 200, body: lectureRepresentation(lecture), headers: { ETag: etagOf(lecture.version) } };
};
