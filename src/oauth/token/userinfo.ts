import type { Middleware } from 'koa';
import { requireAccessToken, requireAnyScope } from '../bearer.js';
import { InvalidTokenError } from '../errors.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { userClaims } from '../user-claims.js';

/** GET|POST /api/oauth/userinfo (OIDC Core 5.3): the member's claims, limited by the granted scopes; no `resource` claim. */
export function userinfoEndpoint(services: Services): Middleware<SiteState> {
  return async (ctx) => {
    const { site } = ctx.state;
    const verified = await requireAccessToken(services.db, site, ctx.get('authorization') || undefined);
    requireAnyScope(site, verified, ['openid']);
    if (verified.userId === null) throw new InvalidTokenError(site.origin, 'the access token is not bound to a user');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await userClaims(services.db, site, verified.userId, verified.scopes, services.config.variant);
  };
}
