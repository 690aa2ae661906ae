import { CATALOGUE_LIMITS } from '../../catalog/context.js';
import { defineResource } from '../resource.js';
import { searchCourses } from '../tools/public/search-courses.js';
import { everyItem, JSON_MIME_TYPE, jsonContents, toolResult, TTL, type ToolPage } from './tool-content.js';

/** At most this many courses in one read; `totalCount` and `truncated` tell when a school has more (search_courses pages through them all). */
export const CATALOGUE_RESOURCE_LIMIT = 500;

/** `school://{host}/courses`: every published course, by title, each as search_courses returns it. */
export const courseCatalogueResource = defineResource({
  name: 'course-catalogue',
  title: 'Course catalogue',
  description: `Every published course of this school, by title, each with its price, lecturers, number of sections and lectures and total length (the same fields as the search_courses tool), at most ${CATALOGUE_RESOURCE_LIMIT}: totalCount says how many there are and truncated whether some were left out. Public: no sign-in needed.`,
  mimeType: JSON_MIME_TYPE,
  path: '/courses',
  scopes: [],
  ttlMs: TTL.catalogue,
  async read(context, uri) {
    const { items, totalCount, truncated } = await everyItem(CATALOGUE_RESOURCE_LIMIT, async (cursor) => {
      const page = await toolResult<{ courses: unknown[] } & Omit<ToolPage<unknown>, 'items'>>(searchCourses, { first: CATALOGUE_LIMITS.maxSize, ...(cursor === undefined ? {} : { cursor }) }, context);
      return { items: page.courses, pageInfo: page.pageInfo, totalCount: page.totalCount };
    });
    return jsonContents(uri, { courses: items, totalCount, truncated });
  },
});
