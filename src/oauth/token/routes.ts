import Router from '@koa/router';
import { acceptBody, DEFAULT_BODY_LIMIT } from '../../http/body.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { addressLimits } from '../anonymous-limits.js';
import { limitFailures } from '../failure-limits.js';
import { OAUTH_PATHS } from '../endpoints.js';
import { introspectionEndpoint } from './introspect.js';
import { revocationEndpoint } from './revoke.js';
import { tokenEndpoint } from './token-endpoint.js';
import { userinfoEndpoint } from './userinfo.js';

/** Token-side endpoints: token, revocation, userinfo, and introspection where the deployment serves it. */
export function tokenRoutes(services: Services): Router<SiteState> {
  const router = new Router<SiteState>();
  // Failed client requests are counted per address; one count for all three endpoints a client authenticates at.
  // The body is read before the failure count: an unreadable body is no failed client authentication.
  const form = acceptBody<SiteState>({ form: DEFAULT_BODY_LIMIT });
  const failures = limitFailures(services.db, 'token-failures', addressLimits(services.config.anonymousLimits).failures);
  router.post(OAUTH_PATHS.token, form, failures, tokenEndpoint(services));
  router.post(OAUTH_PATHS.revoke, form, failures, revocationEndpoint(services));
  router.get(OAUTH_PATHS.userinfo, userinfoEndpoint(services));
  router.post(OAUTH_PATHS.userinfo, userinfoEndpoint(services));
  if (services.variant.introspection) router.post(OAUTH_PATHS.introspect, form, failures, introspectionEndpoint(services));
  return router;
}
