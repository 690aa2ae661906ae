import { publishPost as publishSitePost } from '../../../content/posts.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { postRepresentation } from './representation.js';

/** POST /posts/{postId}/publish (posts:write): draft → published (409 invalid_state_transition otherwise). */
export const publishPost: AdminHandler<'publishPost'> = async ({ db, site, path }) => {
  const post = await publishSitePost(db, site.id, path.postId);
  return { status: 200, body: postRepresentation(post), headers: { ETag: etagOf(post.version) } };
};
