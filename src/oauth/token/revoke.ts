import type { Middleware } from 'koa';
import { readForm, requireParam } from '../parameters.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { authenticateClient } from '../client-authentication.js';
import { recordValidClient } from '../failure-limits.js';
import { endGrant } from '../../grants/end-grant.js';
import { findPairByAccessToken, findPairByRefreshToken, type TokenPair } from '../tokens/store.js';

type Found = { pair: TokenPair; presented: 'access_token' | 'refresh_token' } | null;

/**
 * POST /api/oauth/revoke (RFC 7009) with the spec's rules (Token pair table, Authentication 14): the refresh token,
 * or an access token within its lifetime, revokes its pair and with it every pair of the same grant (RFC 7009 2.1:
 * the server SHOULD revoke the grant); an access token past its lifetime answers 200 and revokes nothing (the refresh
 * token keeps working); an unknown or unactionable token answers 200.
 */
export function revocationEndpoint(services: Services): Middleware<SiteState> {
  return async (ctx) => {
    const form = readForm(ctx);
    const token = requireParam(form, 'token');
    const { site } = ctx.state;
    const { client } = await authenticateClient(services.db, site, form, ctx.get('authorization') || undefined, 'revocation');
    recordValidClient(ctx, client);
    ctx.state.clientId = client.clientId;
    const found = await findPresentedToken(services, token, form.get('token_type_hint'));
    // A token of another site or client is unactionable for this caller: 200, nothing revoked.
    if (found && found.pair.siteId === site.id && found.pair.clientRef === client.ref && isActionable(found)) {
      // The client ended the grant itself; its back-channel logout notice is still sent (Back-Channel Logout 2.5).
      await endGrant(services.db, site, found.pair.grantId, 'revoked');
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 200;
    ctx.body = {};
  };
}

async function findPresentedToken({ db }: Services, token: string, hint: string | undefined): Promise<Found> {
  // RFC 7009 2.1: the hint orders the lookup; a wrong hint still finds the token.
  const lookups = hint === 'refresh_token' ? (['refresh_token', 'access_token'] as const) : (['access_token', 'refresh_token'] as const);
  for (const presented of lookups) {
    const pair = presented === 'access_token' ? await findPairByAccessToken(db, token) : await findPairByRefreshToken(db, token);
    if (pair) return { pair, presented };
  }
  return null;
}

function isActionable({ pair, presented }: NonNullable<Found>): boolean {
  return presented === 'refresh_token' || pair.accessExpiresAt.getTime() > Date.now();
}
