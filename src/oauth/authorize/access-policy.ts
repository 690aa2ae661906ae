import type { Role } from '../../accounts/roles.js';
import type { OAuthClient } from '../../clients/clients.js';
import { rolesPermitClient } from '../../grants/authorization-policy.js';

/**
 * Who may authorize which client (spec, Authentication 4 and 5), decided by the shared rolesPermitClient (also
 * checked at every refresh): a member client needs any role at the site, students included; an operator client an
 * operator role (owner, operator, staff), since it reaches the admin API. Returns why the user may not, in words for
 * the error_description and the pages, or null when they may.
 */
export function refusalReason(client: OAuthClient, roles: readonly Role[], siteName: string): string | null {
  if (rolesPermitClient(roles, client)) return null;
  if (roles.length === 0) return `the account has no role at ${siteName}; only its members can authorize applications there`;
  return `"${client.name}" is an operator tool; authorizing it needs an owner, operator or staff role at ${siteName}`;
}
