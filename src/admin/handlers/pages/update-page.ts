import { updatePage as updateSitePage, type PageChanges } from '../../../content/pages.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { pageRepresentation } from './representation.js';

/** PATCH /pages/{pageId} (pages:write): merge patch of slug, title, body and status at the version If-Match names. */
export const updatePage: AdminHandler<'updatePage'> = async ({ db, site, path, headers, body }) => {
  const expectedVersion = versionFromIfMatch(headers['If-Match']);
  const changes: PageChanges = {};
  if (body.slug !== undefined) changes.slug = body.slug;
  if (body.title !== undefined) changes.title = body.title;
  if (body.body !== undefined) changes.body = body.body;
  if (body.status !== undefined) changes.status = body.status;
  const page = await updateSitePage(db, site.id, path.pageId, changes, expectedVersion);
  return { status: 200, body: pageRepresentation(page), headers: { ETag: etagOf(page.version) } };
};
