import Router from '@koa/router';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { addressLimits, limitFailures } from '../anonymous-limits.js';
import { OAUTH_PATHS } from '../endpoints.js';
import { introspectionEndpoint } from './introspect.js';
import { revocationEndpoint } from './revoke.js';
import { tokenEndpoint } from './token-endpoint.js';
import { userinfoEndpoint } from './userinfo.js';

/** Token-side endpoints: token, revocation, userinfo, and in variant B introspection (variant A has none). */
export function tokenRoutes(services: Services): Router<SiteState> {
  const router = new Router<SiteState>();
  // Failed client requests are counted per address; one count for all three endpoints a client authenticates at.
  const failures = limitFailures(services.db, 'token-failures', addressLimits(services.config.anonymousLimits).failures);
  router.post(OAUTH_PATHS.token, failures, tokenEndpoint(services));
  router.post(OAUTH_PATHS.revoke, failures, revocationEndpoint(services));
  router.get(OAUTH_PATHS.userinfo, userinfoEndpoint(services));
  router.post(OAUTH_PATHS.userinfo, userinfoEndpoint(services));
  if (services.config.variant === 'B') router.post(OAUTH_PATHS.introspect, failures, introspectionEndpoint(services));
  return router;
}
