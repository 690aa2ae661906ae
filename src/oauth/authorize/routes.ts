import Router from '@koa/router';
import { acceptBody, DEFAULT_BODY_LIMIT } from '../../http/body.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { authorizeEndpoint } from './authorize-endpoint.js';
import { cancelEndpoint } from './cancel-endpoint.js';
import { consentEndpoint } from './consent-endpoint.js';
import { AUTHORIZE_PATHS } from './paths.js';
import { signInEndpoint } from './sign-in-endpoint.js';
import { switchAccountEndpoint } from './switch-account-endpoint.js';

/**
 * The authorization endpoint and its server-rendered pages (docs/authorize.md):
 * GET /oauth/authorize validates the request, then shows the sign-in page or, for a signed-in user, the consent page;
 * the pages' forms post to the four endpoints below. Each endpoint is a list of named steps (see *-endpoint.ts).
 */
export function authorizeRoutes(services: Services): Router<SiteState> {
  const router = new Router<SiteState>();
  router.get(AUTHORIZE_PATHS.authorize, authorizeEndpoint(services));
  const form = acceptBody<SiteState>({ form: DEFAULT_BODY_LIMIT });
  router.post(AUTHORIZE_PATHS.signIn, form, signInEndpoint(services));
  router.post(AUTHORIZE_PATHS.consent, form, consentEndpoint(services));
  router.post(AUTHORIZE_PATHS.switchAccount, form, switchAccountEndpoint(services));
  router.post(AUTHORIZE_PATHS.cancel, form, cancelEndpoint(services));
  return router;
}
