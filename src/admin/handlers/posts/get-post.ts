import { requirePost } from '../../../content/posts.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { postRepresentation } from './representation.js';

/** GET /posts/{postId} (posts:read): one post of this site (404 for any other site's). */
export const getPost: AdminHandler<'getPost'> = async ({ db, site, path }) => {
  const post = await requirePost(db, site.id, path.postId);
  return { status: 200, body: postRepresentation(post), headers: { ETag: etagOf(post.version) } };
};
