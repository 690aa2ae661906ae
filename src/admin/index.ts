import type { Middleware } from 'koa';
import { nameRouteOfRefusedMethod } from '../http/metrics.js';
import type { SiteState } from '../http/state.js';
import type { Services } from '../services.js';
import { adminApi } from './api/backend.js';
import { adminErrorPage, AdminPageError } from './pages/area.js';
import { adminGrantRoutes } from './pages/grant-routes.js';
import { adminPageRoutes } from './pages/routes.js';
import { adminUsageRoutes } from './pages/usage-routes.js';

export { ADMIN_API_BASE_PATH } from './contract.js';
export { openapiDocument, OPENAPI_DOCUMENT_PATH } from './openapi-document.js';

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * The operators' interfaces of a site, mounted before the site's routes (each reads its own body):
 * - `/api/admin/…`: the REST admin API (problem+json everywhere under it, 404 included);
 * - `/admin…`: the admin area pages (HTML everywhere under it, 404 and 405 included).
 * Every other path goes on to the next middleware untouched. (`GET /openapi.json`, the contract, is an ordinary site
 * route: openapiDocument().)
 */
export function adminInterface(services: Services): Middleware<SiteState> {
  const api = adminApi(services);
  const router = adminPageRoutes(services);
  router.use(adminGrantRoutes(services).routes());
  router.use(adminUsageRoutes(services).routes());
  // @koa/router's middleware adds ctx.params and ctx.router itself; as plain site middleware they take any site ctx.
  const routes = router.routes() as unknown as Middleware<SiteState>;
  const allowedMethods = router.allowedMethods() as unknown as Middleware<SiteState>;
  async function adminArea(ctx: Parameters<Middleware<SiteState>>[0]): Promise<void> {
    await routes(ctx, () => allowedMethods(ctx, async () => undefined));
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 405) {
      nameRouteOfRefusedMethod(ctx, router);
      const allow = ctx.response.get('Allow');
      adminErrorPage(ctx, new AdminPageError(405, 'method_not_allowed', 'This cannot be done', `${ctx.method} is not allowed on ${ctx.path}.`, { Allow: allow }));
    } else {
      adminErrorPage(ctx, new AdminPageError(404, 'not_found', 'Page not found', `The admin area has no page at ${ctx.path}.`));
    }
  }
  // Not async itself: every other request passes through to the site's routes without a promise of its own.
  return (ctx, next) => {
    if (under(ctx.path, '/api/admin')) return api(ctx, next);
    if (!under(ctx.path, '/admin')) return next();
    return adminArea(ctx);
  };
}
