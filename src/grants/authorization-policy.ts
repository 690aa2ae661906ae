import type { OAuthClient } from '../clients/clients.js';
import type { Audience } from '../clients/scopes.js';
import { OPERATOR_ROLES, type Role } from '../accounts/roles.js';

/**
 * The client audiences these roles may hold tokens for: any role at the site, students included, for member clients
 * (Authentication 4); an operator role (owner, operator, staff) for operator clients, which reach the admin API.
 */
export function permittedAudiences(roles: readonly Role[]): Audience[] {
  const audiences: Audience[] = [];
  if (roles.length > 0) audiences.push('member');
  if (roles.some((role) => OPERATOR_ROLES.includes(role))) audiences.push('operator');
  return audiences;
}

/**
 * Who may hold a token of this client at this site. Checked at authorization and again at every refresh; a change of
 * roles also revokes the tokens the new roles no longer permit (src/grants/access-removal.ts).
 */
export function rolesPermitClient(roles: readonly Role[], client: OAuthClient): boolean {
  return permittedAudiences(roles).includes(client.audience);
}
