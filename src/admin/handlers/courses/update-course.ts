import { updateCourse as updateSiteCourse } from '../../../courses/courses.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { courseRepresentation } from './representation.js';

/** PATCH /courses/{courseId} (courses:write): merge patch, applied only at the version If-Match names. */
export const updateCourse: AdminHandler<'updateCourse'> = async ({ db, site, path, headers, body }) => {
  const course = await updateSiteCourse(
    db,
    site.id,
    path.courseId,
    {
      ...(body.slug === undefined ? {} : { slug: body.slug }),
      ...(body.title === undefined ? {} : { title: body.title }),
      ...(body.description === undefined ? {} : { description: body.description }),
      ...(body.coverImageUrl === undefined ? {} : { coverImageUrl: body.coverImageUrl }),
      ...(body.status === undefined ? {} : { status: body.status }),
      ...(body.price === undefined ? {} : { price: body.price }),
    },
    versionFromIfMatch(headers['If-Match']),
  );
  return { status: 200, body: courseRepresentation(course), headers: { ETag: etagOf(course.version) } };
};
