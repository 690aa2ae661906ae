import { updatePost as updateSitePost, type PostChanges } from '../../../content/posts.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { postRepresentation } from './representation.js';

/** PATCH /posts/{postId} (posts:write): merge patch of slug, title, body and author at the version If-Match names. */
export const updatePost: AdminHandler<'updatePost'> = async ({ db, site, path, headers, body }) => {
  const expectedVersion = versionFromIfMatch(headers['If-Match']);
  const changes: PostChanges = {};
  if (body.slug !== undefined) changes.slug = body.slug;
  if (body.title !== undefined) changes.title = body.title;
  if (body.body !== undefined) changes.body = body.body;
  if (body.authorUserId !== undefined) changes.authorUserId = body.authorUserId;
  const post = await updateSitePost(db, site.id, path.postId, changes, expectedVersion);
  return { status: 200, body: postRepresentation(post), headers: { ETag: etagOf(post.version) } };
};
