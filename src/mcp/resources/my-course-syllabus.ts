import { enrolledCoursesPage } from '../../member/courses.js';
import { DEFAULT_LIMITS } from '../../member/pagination.js';
import { defineResource, ResourceUnavailableError } from '../resource.js';
import type { ToolContext } from '../session.js';
import { getMyCourseSyllabus } from '../tools/member/my-course-syllabus.js';
import { COMPLETION_SCAN, JSON_MIME_TYPE, jsonContents, toolResult, TTL } from './tool-content.js';

/** The member's course slugs that start with `prefix` (ignoring case), newest enrollment first, at most COMPLETION_SCAN. */
async function enrolledSlugsStartingWith(context: ToolContext, prefix: string): Promise<string[]> {
  const member = context.member();
  const wanted = prefix.toLowerCase();
  const slugs: string[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await enrolledCoursesPage(member, { first: DEFAULT_LIMITS.maxSize, after });
    slugs.push(...page.nodes.map((course) => course.slug).filter((slug) => slug.toLowerCase().startsWith(wanted)));
    const last = page.cursors.at(-1);
    if (!page.hasNextPage || last === undefined || slugs.length >= COMPLETION_SCAN) return slugs.slice(0, COMPLETION_SCAN);
    after = last;
  }
}

/**
 * `school://{host}/me/courses/{slug}/syllabus`: one of the signed-in member's courses lecture by lecture with their
 * progress, as get_my_course_syllabus returns it. The URI names a course, never a member: the reader is always the
 * token's member, and a course they are not enrolled in is a resource that does not exist for them.
 */
export const myCourseSyllabusResource = defineResource({
  name: 'my-course-syllabus',
  title: 'My progress in a course',
  description:
    "One course the signed-in member is enrolled in, named by its slug, lecture by lecture: each lecture's state (unread, read or completed), lock and unlock time and duration, overall progress, where the member stopped watching (resumeAt) and the next lecture to take (nextUp). The same JSON as the get_my_course_syllabus tool. Needs a member token with account:read.",
  mimeType: JSON_MIME_TYPE,
  path: '/me/courses/{slug}/syllabus',
  scopes: ['account:read'],
  ttlMs: TTL.member,
  async read(context, uri, params) {
    const slug = params.slug ?? '';
    const syllabus = await toolResult<{ course: { slug: string } }>(getMyCourseSyllabus, { course: slug }, context);
    // The tool also takes a course id; a URI names a course by its slug only, so each course has one URI.
    if (syllabus.course.slug !== slug) throw new ResourceUnavailableError(`the member is not enrolled in a course with the slug "${slug}" at this school`);
    return jsonContents(uri, syllabus);
  },
  async instances(context, after, limit) {
    // Newest enrollment first with keyset cursors, the order of list_my_courses.
    const page = await enrolledCoursesPage(context.member(), { first: limit, after });
    return {
      items: page.nodes.map((course) => ({ params: { slug: course.slug }, title: `My progress in ${course.title}`, description: `Lecture by lecture progress in ${course.title}, with where the member stopped and what is next.` })),
      next: page.hasNextPage ? (page.cursors.at(-1) ?? null) : null,
    };
  },
  async complete(context, name, prefix) {
    return name === 'slug' ? enrolledSlugsStartingWith(context, prefix) : [];
  },
});
