import type { AuthInfo } from '@modelcontextprotocol/server';
import type { ResourceRequest } from '../oauth/bearer.js';
import { passMemberTokenGate } from '../oauth/member-token-gate.js';
import type { Services } from '../services.js';
import type { Site } from '../sites/sites.js';
import { ANONYMOUS, type McpCaller } from './session.js';

const OWNERLESS_REFUSAL = 'the access token is not bound to a user (it has no resource owner); /mcp needs a token issued to a signed-in member, or no token for the public tools';

/**
 * Authentication at /mcp (spec, Authentication 8-9 and the /mcp rows of Errors), the SDK's bearer-auth pattern with
 * the member-token gate the member API shares (src/oauth/member-token-gate.ts) in place of the SDK's verifier: the
 * token is checked against this site's store and the result is handed to the transport as the SDK's AuthInfo.
 *
 * - No Authorization header: anonymous, public tools only.
 * - A malformed header, an unknown, expired, revoked or other-origin token: 401 invalid_token with WWW-Authenticate
 *   pointing at {base_url}/.well-known/oauth-protected-resource (InvalidTokenError, rendered by the error middleware).
 * - The store cannot answer: the error propagates and the error middleware answers 503 temporarily_unavailable
 *   without WWW-Authenticate, so clients retry instead of dropping their tokens.
 * - A token with no resource owner: refused as not bound to a user (401 invalid_token) where the deployment's
 *   `mcpUnboundToken` says so; otherwise (the spec is silent) served like an anonymous caller: public tools only.
 * - Where member tokens are school-bound, they must carry this site's school_id (spec, Authentication 8: "refused as
 *   issued for a different organization"), as at the member GraphQL API.
 * - The member is the token's `sub`: the user id, as userinfo and introspection report it.
 * - Operator tokens are accepted (they are valid tokens of this origin bound to a user) but hold no account scope, so
 *   they get the public tools only; a user-bound tool called with one answers insufficient_scope.
 */
export async function authenticateMcpCaller(services: Services, site: Site, request: ResourceRequest): Promise<McpCaller> {
  const ownerlessRefusal = services.variant.mcpUnboundToken === 'refuse' ? OWNERLESS_REFUSAL : null;
  const verified = await passMemberTokenGate(services, site, request, { anonymous: 'allow', ownerlessRefusal });
  if (verified === null) return ANONYMOUS;
  const sub = verified.userId === null ? null : String(verified.userId);
  const authInfo: AuthInfo = {
    token: verified.token,
    clientId: verified.client.clientId,
    scopes: [...verified.scopes],
    expiresAt: Math.floor(verified.pair.accessExpiresAt.getTime() / 1000),
    resource: new URL(verified.pair.resource),
    extra: { sub, audience: verified.client.audience },
  };
  return { authInfo, userId: sub === null ? null : Number(sub), audience: verified.client.audience, scopes: verified.scopes, clientRef: verified.client.ref };
}
