import { OPERATOR_ROLES, rolesAt, type Role } from '../../accounts/roles.js';
import type { Actor } from '../../clients/actors.js';
import type { Scope } from '../../clients/scopes.js';
import type { Database } from '../../db/connection.js';
import { accessCredentialsOf, verifyAccessToken, type ResourceRequest, type VerifiedToken } from '../../oauth/bearer.js';
import { InsufficientScopeError, missingTokenChallenge } from '../../oauth/errors.js';
import type { Site } from '../../sites/sites.js';
import { AdminProblem } from './problems.js';

/** A person: a live operator-client token of this site, for a user with an operator role here. */
export interface PersonPrincipal {
  kind: 'user';
  token: VerifiedToken;
  userId: number;
  roles: Role[];
  /** Recorded as the author of this caller's writes. */
  actor: Actor;
}

/** A service client of this site acting as itself (client_credentials, RFC 6749 4.4): no person, no roles. */
export interface ServiceClientPrincipal {
  kind: 'client';
  token: VerifiedToken;
  clientRef: number;
  clientId: string;
  actor: Actor;
}

/** Who calls the admin API. */
export type OperatorPrincipal = PersonPrincipal | ServiceClientPrincipal;

/** The caller as the request log names it, so every admin write's log line says who made it (the access line adds its clientId). */
export function principalLogFields(principal: OperatorPrincipal): Record<string, unknown> {
  return principal.kind === 'user' ? { actorUserId: principal.userId } : { actorClientId: principal.clientId };
}

/** The acting operator of the members rules (src/people/members.ts): a service client has no user and no roles. */
export function actingOperator(principal: OperatorPrincipal): { userId: number | null; roles: readonly Role[] } {
  return principal.kind === 'user' ? { userId: principal.userId, roles: principal.roles } : { userId: null, roles: [] };
}

/** For operations that act for a person (a staff member's own view): a service client is refused with 403. */
export function requirePerson(principal: OperatorPrincipal, what: string): PersonPrincipal {
  if (principal.kind === 'user') return principal;
  throw new AdminProblem(403, 'person_required', `${what} is done by a person: use a token issued to an operator who signed in, not a service client's.`);
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
 * 1. the shared access-token verifier (src/oauth/bearer.ts): 401 `invalid_token` for malformed, unknown, expired, revoked
 *    and other-origin tokens (a token of site A at site B is bound to A's origin), and the DPoP proof of a bound token;
 * 2. 403 `insufficient_scope` unless the token was issued to an operator-audience client (a member token never
 *    reaches the admin API), for a user who holds owner, operator or staff at this site, or to a service client of
 *    the site (no user; client_credentials), and holds `scope`.
 */
export async function authenticateOperator(db: Database, site: Site, request: ResourceRequest, scope: Scope): Promise<OperatorPrincipal> {
  const presented = accessCredentialsOf(site, request.authorization);
  if (presented === null) throw missingTokenProblem(site);
  const token = await verifyAccessToken(db, site, presented, request);
  if (token.client.audience !== 'operator') {
    throw new InsufficientScopeError(site.origin, [scope], 'member tokens do not reach the admin API; use a token of an operator client');
  }
  if (token.userId === null) {
    // Only client_credentials issues tokens without a resource owner, and only to service clients; checked anyway.
    if (token.client.kind !== 'service') throw new InsufficientScopeError(site.origin, [scope], 'the admin API needs a token issued for a user who operates this site, or to a service client');
    if (!token.scopes.includes(scope)) throw new InsufficientScopeError(site.origin, [scope], `this operation needs the scope ${scope}, which this service client does not hold`);
    return { kind: 'client', token, clientRef: token.client.ref, clientId: token.client.clientId, actor: { kind: 'client', clientRef: token.client.ref } };
  }
  const roles = await rolesAt(db, site.id, token.userId);
  if (!roles.some((role) => OPERATOR_ROLES.includes(role))) {
    throw new InsufficientScopeError(site.origin, [scope], `the user of this token is not an owner, operator or staff member of ${site.name}`);
  }
  if (!token.scopes.includes(scope)) throw new InsufficientScopeError(site.origin, [scope], `this operation needs the scope ${scope}`);
  return { kind: 'user', token, userId: token.userId, roles, actor: { kind: 'user', userId: token.userId } };
}
