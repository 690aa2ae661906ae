import { OPERATOR_ROLES, rolesAt, type Role } from '../../accounts/roles.js';
import type { Scope } from '../../clients/scopes.js';
import type { Database } from '../../db/connection.js';
import { bearerTokenOf, verifyAccessToken, type VerifiedToken } from '../../oauth/bearer.js';
import { InsufficientScopeError, missingTokenChallenge } from '../../oauth/errors.js';
import type { Site } from '../../sites/sites.js';
import { AdminProblem } from './problems.js';

/** Who calls the admin API: a live operator-client token of this site, for a user with an operator role here. */
export interface OperatorPrincipal {
  token: VerifiedToken;
  userId: number;
  roles: Role[];
}

/**
 * RFC 6750 3.1: a request without any credentials gets a challenge without an error code; the body still says
 * `invalid_token` (docs/admin-api.md, Authentication and scopes).
 */
function missingTokenProblem(site: Site): AdminProblem {
  return new AdminProblem(401, 'invalid_token', 'The admin API needs an operator access token: Authorization: Bearer <token>.', [], { 'WWW-Authenticate': missingTokenChallenge(site.origin) });
}

/**
 * The one check behind every admin operation, fed with the scope its `security` names in the contract:
 * 1. the shared bearer verifier (src/oauth/bearer.ts): 401 `invalid_token` for malformed, unknown, expired, revoked
 *    and other-origin tokens (a token of site A at site B is bound to A's origin);
 * 2. 403 `insufficient_scope` unless the token was issued to an operator-audience client (a member token never
 *    reaches the admin API), for a user who holds owner, operator or staff at this site, and holds `scope`.
 */
export async function authenticateOperator(db: Database, site: Site, authorization: string | undefined, scope: Scope): Promise<OperatorPrincipal> {
  const presented = bearerTokenOf(site, authorization);
  if (presented === null) throw missingTokenProblem(site);
  const token = await verifyAccessToken(db, site, presented);
  if (token.client.audience !== 'operator') {
    throw new InsufficientScopeError(site.origin, [scope], 'member tokens do not reach the admin API; use a token of an operator client');
  }
  if (token.userId === null) throw new InsufficientScopeError(site.origin, [scope], 'the admin API needs a token issued for a user who operates this site');
  const roles = await rolesAt(db, site.id, token.userId);
  if (!roles.some((role) => OPERATOR_ROLES.includes(role))) {
    throw new InsufficientScopeError(site.origin, [scope], `the user of this token is not an owner, operator or staff member of ${site.name}`);
  }
  if (!token.scopes.includes(scope)) throw new InsufficientScopeError(site.origin, [scope], `this operation needs the scope ${scope}`);
  return { token, userId: token.userId, roles };
}
