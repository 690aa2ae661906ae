import type { Middleware } from 'koa';
import { requireAccessToken, requireAnyScope, resourceRequestOf } from '../bearer.js';
import { InvalidTokenError } from '../errors.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { claimsOf } from '../user-claims.js';

/** GET|POST /api/oauth/userinfo (OIDC Core 5.3): the member's claims, limited by the granted scopes; no `resource` claim. One round trip: the claims come with the token. */
export function userinfoEndpoint(services: Services): Middleware<SiteState> {
  return async (ctx) => {
    const { site } = ctx.state;
    const verified = await requireAccessToken(services.db, site, resourceRequestOf(ctx, services.config));
    ctx.state.clientId = verified.client.clientId;
    // A service client's token has no user: not a token for this endpoint at all (401), whatever its scopes.
    if (verified.user === null) throw new InvalidTokenError(site.origin, 'the access token is not bound to a user');
    requireAnyScope(site, verified, ['openid']);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = claimsOf(verified.user, verified.roles, site, verified.scopes, services.variant);
  };
}
