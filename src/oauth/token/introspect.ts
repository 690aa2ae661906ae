import type { Middleware } from 'koa';
import { readForm, requireParam } from '../parameters.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { authenticateClient } from '../client-authentication.js';
import { recordValidClient } from '../failure-limits.js';
import { findPairByAccessToken, findPairByRefreshToken } from '../tokens/store.js';

/**
 * POST /api/oauth/introspect (RFC 7662), where the deployment serves it: returns the token's resource binding (Authentication 10).
 * A client may introspect only its own tokens; anything else is `{ "active": false }`.
 */
export function introspectionEndpoint(services: Services): Middleware<SiteState> {
  return async (ctx) => {
    const form = readForm(ctx);
    const token = requireParam(form, 'token');
    const { site } = ctx.state;
    const { client } = await authenticateClient(services.db, site, form, ctx.get('authorization') || undefined, 'introspection');
    recordValidClient(ctx, client);
    ctx.state.clientId = client.clientId;
    const now = Date.now();
    const asAccess = await findPairByAccessToken(services.db, token);
    const asRefresh = asAccess ? null : await findPairByRefreshToken(services.db, token);
    const pair = asAccess ?? asRefresh;
    const expiresAt = asAccess ? pair?.accessExpiresAt : pair?.refreshExpiresAt;
    ctx.set('Cache-Control', 'no-store');
    const active = pair !== null && pair.siteId === site.id && pair.clientRef === client.ref && pair.revokedAt === null && (expiresAt === null || expiresAt === undefined || expiresAt.getTime() > now);
    if (!active) {
      ctx.body = { active: false };
      return;
    }
    ctx.body = {
      active: true,
      scope: pair.scopes.join(' '),
      client_id: client.clientId,
      // RFC 9449 6.2: a DPoP-bound access token reports its type and the key it is bound to.
      token_type: asAccess ? (pair.dpopJkt === null ? 'Bearer' : 'DPoP') : 'refresh_token',
      ...(asAccess && pair.dpopJkt !== null ? { cnf: { jkt: pair.dpopJkt } } : {}),
      ...(pair.userId === null ? {} : { sub: String(pair.userId) }),
      ...(expiresAt ? { exp: Math.floor(expiresAt.getTime() / 1000) } : {}),
      iat: Math.floor(pair.createdAt.getTime() / 1000),
      iss: site.origin,
      // The RFC 8707 binding, as audience and as the resource value the client sent.
      aud: pair.resource,
      resource: pair.resource,
    };
  };
}
