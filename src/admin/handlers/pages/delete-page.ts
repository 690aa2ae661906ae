import { deletePage as deleteSitePage } from '../../../content/pages.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /pages/{pageId} (pages:write): nothing refers to pages, so it is never refused. */
export const deletePage: AdminHandler<'deletePage'> = async ({ db, site, path }) => {
  await deleteSitePage(db, site.id, path.pageId);
  return { status: 204 };
};
