import type { Middleware } from 'koa';
import type { SiteState } from '../http/state.js';
import { html, safeUrl } from '../http/html.js';
import type { DocsAssets } from './assets.js';
import { setDocsPageHeaders, SWAGGER_UI_PAGE_CSP } from './headers.js';

/**
 * GET /docs/oauth2-redirect.html: where "Authorize" on /docs/admin-api comes back with the authorization code. Swagger
 * UI's own oauth2-redirect.js (from the package) hands the code to the opener window and closes the popup. The URL
 * carries a code, so the answer is not cached.
 */
export function oauth2RedirectPage(assets: DocsAssets): Middleware<SiteState> {
  return async (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    setDocsPageHeaders(ctx, SWAGGER_UI_PAGE_CSP);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Signing in to the admin API reference</title></head>
<body>
<script src="${safeUrl(assets.url('oauth2-redirect.js'))}"></script>
</body>
</html>
`.toString();
  };
}
