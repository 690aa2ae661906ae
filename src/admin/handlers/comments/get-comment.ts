import { requireComment } from '../../../content/comments.js';
import type { AdminHandler } from '../../api/types.js';
import { commentRepresentation } from './representation.js';

/** GET /comments/{commentId} (comments:read): one comment of this site with its author. */
export const getComment: AdminHandler<'getComment'> = async ({ db, site, path }) => {
  const comment = await requireComment(db, site.id, path.commentId);
  return { status: 200, body: commentRepresentation(comment) };
};
