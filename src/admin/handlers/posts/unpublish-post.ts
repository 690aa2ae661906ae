import { unpublishPost as unpublishSitePost } from '../../../content/posts.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { postRepresentation } from './representation.js';

/** POST /posts/{postId}/unpublish (posts:write): published → draft (409 invalid_state_transition otherwise). */
export const unpublishPost: AdminHandler<'unpublishPost'> = async ({ db, site, path }) => {
  const post = await unpublishSitePost(db, site.id, path.postId);
  return { status: 200, body: postRepresentation(post), headers: { ETag: etagOf(post.version) } };
};
