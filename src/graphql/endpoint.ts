import type { Middleware } from 'koa';
import type { SiteState } from '../http/state.js';
import { resourceRequestOf } from '../oauth/bearer.js';
import { passMemberTokenGate } from '../oauth/member-token-gate.js';
import type { Services } from '../services.js';
import { GraphQLContext } from './context.js';
import { serveGraphqlHttp } from './http/adapter.js';
import { memberGraphqlHandler } from './http/handler.js';
import { LIMITS } from './limits.js';
import { buildMemberSchema } from './schema.js';
import { scopeGate } from './scope-gate.js';

/**
 * GET|POST at the deployment's member API path: graphql-http over the member schema. Authentication (spec,
 * Authentication 8-9 and Errors) is the member-token gate /mcp shares, with no anonymous mode and no token without a
 * resource owner, then the deployment's scope gate. Its refusals (401 invalid_token, 403 insufficient_scope) propagate
 * to the member API's error renderer (src/graphql/errors.ts, mounted with the route in src/app.ts).
 */
export function memberGraphqlEndpoint(services: Services): Middleware<SiteState> {
  const memberSchema = buildMemberSchema(services.variant);
  const gate = scopeGate(services.variant.memberGraphql.scopeGate, memberSchema.schema, memberSchema.scopes);
  const handle = memberGraphqlHandler(services, memberSchema, gate);

  return async (ctx) => {
    const { site } = ctx.state;
    const verified = await passMemberTokenGate(services, site, resourceRequestOf(ctx, services.config), { anonymous: 'refuse', ownerlessRefusal: 'the access token is not bound to a member' });
    ctx.state.clientId = verified.client.clientId;
    gate.admitToken(site, verified);
    const member = new GraphQLContext({ db: services.db, site, userId: verified.userId ?? 0 });
    member.scopes = verified.scopes;
    member.useTokenOwner(verified.user);
    await serveGraphqlHttp(ctx, handle, { member, site, client: verified.client, log: ctx.state.log }, LIMITS.maxBodyBytes);
  };
}
