import type { components } from '../../../../generated/admin-api.js';
import type { Page as PageModel } from '../../../content/pages.js';
import { ADMIN_API_BASE_PATH } from '../../contract.js';

export type Page = components['schemas']['Page'];

export function pageRepresentation(page: PageModel): Page {
  return {
    id: page.id,
    slug: page.slug,
    title: page.title,
    body: page.body,
    status: page.status,
    createdAt: page.createdAt.toISOString(),
    updatedAt: page.updatedAt.toISOString(),
  };
}

export function pageUrl(origin: string, pageId: number): string {
  return `${origin}${ADMIN_API_BASE_PATH}/pages/${pageId}`;
}
