import Router from '@koa/router';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { OAUTH_PATHS } from '../endpoints.js';
import { authorizationServerMetadata } from './authorization-server-metadata.js';
import { siteJwks } from './jwks.js';
import { openidConfiguration } from './openid-configuration.js';
import { protectedResourceMetadata } from './protected-resource-metadata.js';
import { allowPreflight, JWKS_MAX_AGE_SECONDS, sendMetadata } from './send-metadata.js';

/** The discovery documents of the request's site (spec, Endpoints): RFC 9728, RFC 8414, OIDC Discovery and the JWKS. */
export function discoveryRoutes(services: Services): Router<SiteState> {
  const { variant, db } = services;
  const router = new Router<SiteState>();

  router.get(OAUTH_PATHS.protectedResourceMetadata, (ctx) => sendMetadata(ctx, protectedResourceMetadata(ctx.state.site)));
  router.get(OAUTH_PATHS.authorizationServerMetadata, (ctx) => sendMetadata(ctx, authorizationServerMetadata(ctx.state.site, variant)));
  router.get(OAUTH_PATHS.openidConfiguration, (ctx) => sendMetadata(ctx, openidConfiguration(ctx.state.site, variant)));
  router.get(OAUTH_PATHS.jwks, async (ctx) => {
    // RFC 7517 8.5: the media type of a JWK Set.
    sendMetadata(ctx, await siteJwks(db, ctx.state.site.id), JWKS_MAX_AGE_SECONDS);
    ctx.type = 'application/jwk-set+json';
  });
  for (const path of [OAUTH_PATHS.protectedResourceMetadata, OAUTH_PATHS.authorizationServerMetadata, OAUTH_PATHS.openidConfiguration, OAUTH_PATHS.jwks]) {
    router.options(path, allowPreflight);
  }

  return router;
}
