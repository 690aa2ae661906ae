import Router from '@koa/router';
import type { SiteState } from '../http/state.js';
import type { Services } from '../services.js';
import { authorizeRoutes } from './authorize/routes.js';
import { discoveryRoutes } from './discovery/routes.js';
import { logoutRoutes } from './logout/routes.js';
import { registrationRoutes } from './registration/routes.js';
import { tokenRoutes } from './token/routes.js';

/**
 * The authorization server of one site, in two routers: the pages and documents a browser or a client discovers
 * (discovery, the authorize pages), mounted among the site's routes, and the token-side endpoints, every one of them
 * under OAUTH_API_PREFIX (endpoints.ts), which the application routes by that prefix (src/http/prefix-routing.ts).
 * Neither answers 405s itself: the router each is mounted in does (allowedMethods()).
 */
export function oauthRoutes(services: Services): { pages: Router<SiteState>; api: Router<SiteState> } {
  const pages = new Router<SiteState>();
  for (const part of [discoveryRoutes(services), authorizeRoutes(services), logoutRoutes(services)]) pages.use(part.routes());
  const api = new Router<SiteState>();
  for (const part of [tokenRoutes(services), registrationRoutes(services)]) api.use(part.routes());
  return { pages, api };
}
