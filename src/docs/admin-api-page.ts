import type { Middleware } from 'koa';
import { OPENAPI_DOCUMENT_PATH } from '../admin/openapi-document.js';
import type { SiteState } from '../http/state.js';
import { html, safeUrl } from '../http/html.js';
import { ADMIN_API_SCRIPT, ADMIN_API_STYLE, type DocsAssets } from './assets.js';
import { setDocsPageHeaders, SWAGGER_UI_PAGE_CSP } from './headers.js';
import { DOCS_PATHS } from './paths.js';

/**
 * GET /docs/admin-api: Swagger UI (the swagger-ui-dist package, served from /docs/assets) over this site's
 * /openapi.json. Everything the page loads is on this origin; its start-up script is a file, so the CSP allows no
 * inline script. Without JavaScript it links the raw contract.
 */
export function adminApiPage(assets: DocsAssets): Middleware<SiteState> {
  return async (ctx) => {
    const { site } = ctx.state;
    ctx.type = 'text/html; charset=utf-8';
    setDocsPageHeaders(ctx, SWAGGER_UI_PAGE_CSP);
    ctx.body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Admin API reference · ${site.name}</title>
<link rel="stylesheet" href="${safeUrl(assets.url('swagger-ui.css'))}">
<link rel="stylesheet" href="${safeUrl(assets.url(ADMIN_API_STYLE))}">
<link rel="icon" type="image/png" href="${safeUrl(assets.url('favicon-32x32.png'))}" sizes="32x32">
<link rel="icon" type="image/png" href="${safeUrl(assets.url('favicon-16x16.png'))}" sizes="16x16">
</head>
<body>
<p class="docs-chrome"><a href="/">${site.name}</a> · <a href="${DOCS_PATHS.index}">API reference</a> · Admin API</p>
<noscript><p class="docs-chrome">This page needs JavaScript. The contract itself is at <a href="${OPENAPI_DOCUMENT_PATH}">${OPENAPI_DOCUMENT_PATH}</a>.</p></noscript>
<div id="swagger-ui" data-openapi-url="${OPENAPI_DOCUMENT_PATH}" data-oauth2-redirect-path="${DOCS_PATHS.oauth2Redirect}"></div>
<script src="${safeUrl(assets.url('swagger-ui-bundle.js'))}"></script>
<script src="${safeUrl(assets.url(ADMIN_API_SCRIPT))}"></script>
</body>
</html>
`.toString();
  };
}
