import { createCourse as createSiteCourse } from '../../../courses/courses.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { courseRepresentation, courseUrl } from './representation.js';

/** POST /courses (courses:write): a new course, a draft unless `status` says otherwise; 409 `slug_taken`. */
export const createCourse: AdminHandler<'createCourse'> = async ({ db, site, baseUrl, body }) => {
  const course = await createSiteCourse(db, site.id, {
    slug: body.slug,
    title: body.title,
    description: body.description ?? null,
    coverImageUrl: body.coverImageUrl ?? null,
    status: body.status ?? 'draft',
    price: body.price ?? null,
  });
  return { status: 201, body: courseRepresentation(course), headers: { ETag: etagOf(course.version), Location: courseUrl(baseUrl, course.id) } };
};
