import Router from '@koa/router';
import type { SiteState } from '../http/state.js';
import type { Services } from '../services.js';
import { adminApiPage } from './admin-api-page.js';
import { docsAssets } from './assets.js';
import { explorerAssetFiles } from './explorer-assets.js';
import { docsIndexPage } from './index-page.js';
import { memberApiExplorerPage } from './member-api-explorer-page.js';
import { memberApiPage } from './member-api-page.js';
import { oauth2RedirectPage } from './oauth2-redirect-page.js';
import { DOCS_PATHS } from './paths.js';

export { DOCS_PATHS } from './paths.js';

/**
 * The reference pages of a site, public like the documents they render: /docs (index), /docs/admin-api (Swagger UI
 * over /openapi.json, with its OAuth redirect page /docs/oauth2-redirect.html), /docs/member-api (the GraphQL schema
 * of this deployment), /docs/member-api/explorer (GraphiQL over the member endpoint) and /docs/assets/:name.
 */
export function docsRoutes(services: Services): Router<SiteState> {
  const { variant } = services;
  const assets = docsAssets(undefined, explorerAssetFiles(variant));
  const router = new Router<SiteState>();
  router.get(DOCS_PATHS.index, docsIndexPage(variant));
  router.get(DOCS_PATHS.adminApi, adminApiPage(assets));
  router.get(DOCS_PATHS.memberApi, memberApiPage(variant));
  router.get(DOCS_PATHS.memberApiExplorer, memberApiExplorerPage(variant, assets));
  router.get(DOCS_PATHS.oauth2Redirect, oauth2RedirectPage(assets));
  router.get(`${DOCS_PATHS.assets}/:name`, assets.handler);
  return router;
}
