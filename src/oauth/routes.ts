import Router from '@koa/router';
import type { SiteState } from '../http/state.js';
import type { Services } from '../services.js';
import { authorizeRoutes } from './authorize/routes.js';
import { discoveryRoutes } from './discovery/routes.js';
import { registrationRoutes } from './registration/routes.js';
import { tokenRoutes } from './token/routes.js';

/** The authorization server of one site: discovery, the authorize pages, and the token-side endpoints. */
export function oauthRoutes(services: Services): Router<SiteState> {
  const router = new Router<SiteState>();
  for (const part of [discoveryRoutes(services), authorizeRoutes(services), tokenRoutes(services), registrationRoutes(services)]) {
    router.use(part.routes(), part.allowedMethods());
  }
  return router;
}
