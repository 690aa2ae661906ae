import { DEFAULT_LIMITS } from '../../member/pagination.js';
import { defineResource } from '../resource.js';
import { listMyCourses } from '../tools/member/my-courses.js';
import { everyItem, JSON_MIME_TYPE, jsonContents, toolResult, TTL, type ToolPage } from './tool-content.js';

/** At most this many courses in one read (far beyond any member's); `truncated` says when some were left out. */
export const MY_COURSES_RESOURCE_LIMIT = 1000;

/**
 * `school://{host}/me/courses`: the signed-in member's courses with progress and resume point, as list_my_courses
 * returns each. The URI names no member: it is always the token's own, so no URI reaches another member's data.
 */
export const myCoursesResource = defineResource({
  name: 'my-courses',
  title: 'My courses',
  description:
    "Every course the signed-in member is enrolled in at this school, newest enrollment first, each with the member's progress (lectures completed, read and unread, completion rate), where they stopped watching and whether access has ended: the same fields as the list_my_courses tool. Needs a member token with account:read.",
  mimeType: JSON_MIME_TYPE,
  path: '/me/courses',
  scopes: ['account:read'],
  ttlMs: TTL.member,
  async read(context, uri) {
    const { items, totalCount, truncated } = await everyItem(MY_COURSES_RESOURCE_LIMIT, async (cursor) => {
      const page = await toolResult<{ courses: unknown[] } & Omit<ToolPage<unknown>, 'items'>>(listMyCourses, { first: DEFAULT_LIMITS.maxSize, ...(cursor === undefined ? {} : { cursor }) }, context);
      return { items: page.courses, pageInfo: page.pageInfo, totalCount: page.totalCount };
    });
    return jsonContents(uri, { courses: items, totalCount, truncated });
  },
});
