import { listPosts as listSitePosts, sortNeedsPublished } from '../../../content/posts.js';
import { InvalidRequestProblem } from '../../api/problems.js';
import type { AdminHandler } from '../../api/types.js';
import { postRepresentation } from './representation.js';

/** GET /posts (posts:read): one keyset page of the site's posts, drafts included, filtered and sorted. */
export const listPosts: AdminHandler<'listPosts'> = async ({ db, site, query }) => {
  const { status, q } = query;
  if (sortNeedsPublished(query.sort) && status !== 'published') {
    throw new InvalidRequestProblem('Sorting by publishedAt needs status=published: drafts that were never published have no publication time.', [
      { parameter: 'sort', message: 'publishedAt needs status=published' },
    ]);
  }
  const page = await listSitePosts(db, site.id, { status, q }, query);
  return { status: 200, body: { data: page.posts.map(postRepresentation), nextCursor: page.nextCursor } };
};
