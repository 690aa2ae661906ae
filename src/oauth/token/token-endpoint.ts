import type { Middleware } from 'koa';
import { readForm, requireParam } from '../../http/form.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { authenticateClient } from '../client-authentication.js';
import { UnsupportedGrantTypeError } from '../errors.js';
import { authorizationCodeGrant } from './grants/authorization-code.js';
import type { GrantHandler } from './grants/context.js';
import { prefetchRefreshToken, refreshTokenGrant } from './grants/refresh-token.js';

/** The grants discovery advertises in grant_types_supported. */
const GRANTS: Readonly<Record<string, GrantHandler>> = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
};

/** POST /api/oauth/token: read the form, pick the grant, authenticate the client, run the grant, answer no-store. */
export function tokenEndpoint(services: Services): Middleware<SiteState> {
  return async (ctx) => {
    const form = readForm(ctx);
    const grantType = requireParam(form, 'grant_type');
    const grant = Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType] : undefined;
    if (!grant) throw new UnsupportedGrantTypeError(`grant_type ${grantType} is not supported; use authorization_code or refresh_token`);
    const { site } = ctx.state;
    // The refresh grant reads its token with the client row in one statement; client authentication then uses that row.
    const presented = grant === refreshTokenGrant ? await prefetchRefreshToken(services.db, form) : undefined;
    const known = presented ? { client: presented.client, secretHash: presented.clientSecretHash } : undefined;
    const { client } = await authenticateClient(services.db, site, form, ctx.get('authorization') || undefined, 'token', known);
    const body = await grant({ services, site, client, form, presented });
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    ctx.body = body;
  };
}
