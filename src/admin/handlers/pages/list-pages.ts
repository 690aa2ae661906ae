import { listPages as listSitePages } from '../../../content/pages.js';
import type { AdminHandler } from '../../api/types.js';
import { pageRepresentation } from './representation.js';

/** GET /pages (pages:read): one keyset page of the site's static pages, drafts included, filtered and sorted. */
export const listPages: AdminHandler<'listPages'> = async ({ db, site, query }) => {
  const { status, q } = query;
  const page = await listSitePages(db, site.id, { status, q }, query);
  return { status: 200, body: { data: page.pages.map(pageRepresentation), nextCursor: page.nextCursor } };
};
