import { createPost as createSitePost } from '../../../content/posts.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { postRepresentation, postUrl } from './representation.js';

/** POST /posts (posts:write): a draft post; the author defaults to the operator calling. */
export const createPost: AdminHandler<'createPost'> = async ({ db, site, principal, body }) => {
  const post = await createSitePost(db, site.id, { slug: body.slug, title: body.title, body: body.body, authorUserId: body.authorUserId ?? principal.userId });
  return { status: 201, body: postRepresentation(post), headers: { ETag: etagOf(post.version), Location: postUrl(site.origin, post.id) } };
};
