import { createPost as createSitePost } from '../../../content/posts.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { postRepresentation, postUrl } from './representation.js';

/** POST /posts (posts:write): a draft post; the author defaults to the operator calling, or to the service client itself. */
export const createPost: AdminHandler<'createPost'> = async ({ db, site, principal, body }) => {
  const author = body.authorUserId ?? (principal.kind === 'user' ? principal.userId : null);
  const post = await createSitePost(db, site.id, { slug: body.slug, title: body.title, body: body.body, authorUserId: author, authorClientRef: principal.kind === 'client' ? principal.clientRef : null });
  return { status: 201, body: postRepresentation(post), headers: { ETag: etagOf(post.version), Location: postUrl(site.origin, post.id) } };
};
