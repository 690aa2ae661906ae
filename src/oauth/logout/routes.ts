import Router from '@koa/router';
import { acceptBody, DEFAULT_BODY_LIMIT } from '../../http/body.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { confirmSignOutEndpoint, endSessionEndpoint } from './end-session-endpoint.js';
import { LOGOUT_PATHS } from './paths.js';

/** RP-Initiated Logout 1.0 2: the end_session endpoint takes GET and POST; its confirmation form posts to /confirm. */
export function logoutRoutes(services: Services): Router<SiteState> {
  const router = new Router<SiteState>();
  const endSession = endSessionEndpoint(services);
  router.get(LOGOUT_PATHS.endSession, endSession);
  const form = acceptBody<SiteState>({ form: DEFAULT_BODY_LIMIT });
  router.post(LOGOUT_PATHS.endSession, form, endSession);
  router.post(LOGOUT_PATHS.confirm, form, confirmSignOutEndpoint(services));
  return router;
}
