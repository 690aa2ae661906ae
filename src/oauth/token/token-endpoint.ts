import type { Middleware } from 'koa';
import { readForm, requireParam } from '../parameters.js';
import type { SiteContext, SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { authenticateClient } from '../client-authentication.js';
import { recordValidClient } from '../failure-limits.js';
import { AppError } from '../../shared/errors.js';
import { annotateSpan, inSpan } from '../../shared/tracing.js';
import { UnauthorizedClientError, UnsupportedGrantTypeError } from '../errors.js';
import { dpopRequestOf } from '../dpop/request.js';
import { acceptTokenRequestProof, readTokenRequestProof } from '../dpop/token-request.js';
import { authorizationCodeGrant } from './grants/authorization-code.js';
import { clientCredentialsGrant } from './grants/client-credentials.js';
import type { GrantHandler } from './grants/context.js';
import { prefetchRefreshToken, refreshTokenGrant } from './grants/refresh-token.js';

/** The grants discovery advertises in grant_types_supported. */
const GRANTS: Readonly<Record<string, GrantHandler>> = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  client_credentials: clientCredentialsGrant,
};

/** POST /api/oauth/token: read the form, pick the grant, authenticate the client, run the grant, answer no-store; counted by grant and outcome. */
export function tokenEndpoint(services: Services): Middleware<SiteState> {
  const counted = services.metrics.tokenRequests;
  return async (ctx) => {
    // The metric's label: a grant we know, else one bucket, so a client cannot invent label values.
    let grantLabel = 'other';
    try {
      const form = readForm(ctx);
      const grantType = form.get('grant_type');
      if (grantType !== undefined && Object.hasOwn(GRANTS, grantType)) grantLabel = grantType;
      // The span `oauth2.token` (docs/operations.md, "Tracing"); its database spans are its children.
      await inSpan('oauth2.token', issue, ctx, form);
      counted.inc({ grant_type: grantLabel, outcome: 'issued' });
    } catch (error) {
      counted.inc({ grant_type: grantLabel, outcome: error instanceof AppError ? error.code : 'server_error' });
      throw error;
    }
  };

  async function issue(ctx: SiteContext, form: Map<string, string>): Promise<void> {
    const grantType = requireParam(form, 'grant_type');
    const grant = Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType] : undefined;
    annotateSpan('oauth2.grant_type', grant ? grantType : 'other');
    if (!grant) throw new UnsupportedGrantTypeError(`grant_type ${grantType} is not supported; use authorization_code, refresh_token or client_credentials`);
    const { site } = ctx.state;
    // The refresh grant reads its token with the client row in one statement; client authentication then uses that row.
    // RFC 9449 5: a DPoP proof's stateless checks come before client authentication, its jti is spent after.
    const proof = await readTokenRequestProof(site, dpopRequestOf(site, ctx, services.config.dpopNonceRequired));
    const presented = grant === refreshTokenGrant ? await prefetchRefreshToken(services.db, form) : undefined;
    const known = presented ? { client: presented.client, secretHash: presented.clientSecretHash } : undefined;
    const { client } = await authenticateClient(services.db, site, form, ctx.get('authorization') || undefined, 'token', known);
    annotateSpan('oauth2.client_id', client.clientId);
    recordValidClient(ctx, client);
    ctx.state.clientId = client.clientId;
    const dpopJkt = await acceptTokenRequestProof(services.db, site, client, proof);
    // RFC 6749 4.4: a service client acts only as itself; it has no codes or refresh tokens to present.
    if (client.kind === 'service' && grant !== clientCredentialsGrant) throw new UnauthorizedClientError(`${client.name} is a service client: it may use client_credentials only`);
    const body = await grant({ services, site, client, form, presented, dpopJkt });
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    ctx.body = body;
    annotateSpan('oauth2.outcome', 'issued');
  }
}
