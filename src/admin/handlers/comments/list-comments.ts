import { listComments as listSiteComments } from '../../../content/comments.js';
import type { AdminHandler } from '../../api/types.js';
import { commentRepresentation } from './representation.js';

/** GET /comments (comments:read): one keyset page of members' comments, hidden ones included, with their authors. */
export const listComments: AdminHandler<'listComments'> = async ({ db, site, query }) => {
  const { targetKind, targetId, state, userId } = query;
  const page = await listSiteComments(db, site.id, { targetKind, targetId, state, userId }, query);
  return { status: 200, body: { data: page.comments.map(commentRepresentation), nextCursor: page.nextCursor } };
};
