import type { OAuthClient } from '../clients/clients.js';
import { OPERATOR_ROLES, type Role } from '../accounts/roles.js';

/**
 * Who may hold a token of this client at this site: anyone with a role at the site for a member client, students
 * included (Authentication 4); an operator role (owner, operator, staff) for an operator client, which reaches the
 * admin API. Checked at authorization and again at every refresh, so a removed member stops getting tokens.
 */
export function rolesPermitClient(roles: readonly Role[], client: OAuthClient): boolean {
  return client.audience === 'member' ? roles.length > 0 : roles.some((role) => OPERATOR_ROLES.includes(role));
}
