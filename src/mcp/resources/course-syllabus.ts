import { listPublicCourses } from '../../catalog/courses.js';
import { defineResource, ResourceUnavailableError } from '../resource.js';
import { getCourseSyllabus } from '../tools/public/course-syllabus.js';
import { COMPLETION_SCAN, JSON_MIME_TYPE, jsonContents, prefixPattern, toolResult, TTL } from './tool-content.js';

/** `school://{host}/courses/{slug}/syllabus`: one published course's public syllabus, as get_course_syllabus returns it. */
export const courseSyllabusResource = defineResource({
  name: 'course-syllabus',
  title: 'Course syllabus',
  description:
    "The public syllabus of one published course, named by its slug: its sections in order with their lectures' titles, kinds and durations and which are free previews (the same JSON as the get_course_syllabus tool). Public: no sign-in needed.",
  mimeType: JSON_MIME_TYPE,
  path: '/courses/{slug}/syllabus',
  scopes: [],
  ttlMs: TTL.catalogue,
  async read(context, uri, params) {
    const slug = params.slug ?? '';
    const syllabus = await toolResult<{ course: { slug: string } }>(getCourseSyllabus, { course: slug }, context);
    // The tool also takes a course id; a URI names a course by its slug only, so each course has one URI.
    if (syllabus.course.slug !== slug) throw new ResourceUnavailableError(`no published course with the slug "${slug}" at this school`);
    return jsonContents(uri, syllabus);
  },
  async instances(context, after, limit) {
    // The catalogue's own order (title, then id) and keyset cursors: stable while courses are added or removed.
    const page = await listPublicCourses(context.catalog(), { first: limit, after });
    return {
      items: page.nodes.map((course) => ({ params: { slug: course.slug }, title: `${course.title}: syllabus`, description: `The public syllabus of ${course.title}.` })),
      next: page.hasNextPage ? (page.cursors.at(-1) ?? null) : null,
    };
  },
  async complete(context, name, prefix) {
    if (name !== 'slug') return [];
    const catalog = context.catalog();
    const rows = (await catalog
      .db('courses')
      .where({ site_id: catalog.site.id, status: 'published' })
      .whereRaw("lower(slug) like ? escape '!'", [prefixPattern(prefix)])
      .orderBy('slug')
      .limit(COMPLETION_SCAN)
      .select('slug')) as Array<{ slug: string }>;
    return rows.map((row) => row.slug);
  },
});
