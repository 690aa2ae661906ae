import { requirePage } from '../../../content/pages.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { pageRepresentation } from './representation.js';

/** GET /pages/{pageId} (pages:read): one static page of this site (404 for any other site's). */
export const getPage: AdminHandler<'getPage'> = async ({ db, site, path }) => {
  const page = await requirePage(db, site.id, path.pageId);
  return { status: 200, body: pageRepresentation(page), headers: { ETag: etagOf(page.version) } };
};
