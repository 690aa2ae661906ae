import { createPage as createSitePage } from '../../../content/pages.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { pageRepresentation, pageUrl } from './representation.js';

/** POST /pages (pages:write): a static page, a draft unless `status` says otherwise; 409 slug_taken. */
export const createPage: AdminHandler<'createPage'> = async ({ db, site, body }) => {
  const page = await createSitePage(db, site.id, { slug: body.slug, title: body.title, body: body.body, status: body.status ?? 'draft' });
  return { status: 201, body: pageRepresentation(page), headers: { ETag: etagOf(page.version), Location: pageUrl(site.origin, page.id) } };
};
