import { deletePost as deleteSitePost } from '../../../content/posts.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /posts/{postId} (posts:write): refused with 409 post_has_comments while members' comments are on it. */
export const deletePost: AdminHandler<'deletePost'> = async ({ db, site, path }) => {
  await deleteSitePost(db, site.id, path.postId);
  return { status: 204 };
};
