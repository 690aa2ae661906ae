import { rolesAt, type Role } from '../accounts/roles.js';
import { getUserAt, type User } from '../accounts/users.js';
import type { Scope } from '../clients/scopes.js';
import type { Database } from '../db/connection.js';
import type { Site } from '../sites/sites.js';
import type { VariantProfile } from '../variant.js';

/** Claims about the member, shared by userinfo and the id_token so they always match (spec: id_token claims). */
export interface UserClaims {
  sub: string;
  email?: string;
  name?: string;
  picture?: string | null;
  org_id: string;
  roles: string[];
}

/**
 * `sub` is the user id; `org_id` is the site's id and `roles` the member's roles there. `email` needs the email
 * scope, `name` (and, where the deployment has it, `picture`) the profile scope (OIDC Core 5.4). Never a `resource` claim (spec: Userinfo).
 */
export async function userClaims(db: Database, site: Site, userId: number, scopes: readonly Scope[], variant: VariantProfile): Promise<UserClaims> {
  const [user, roles] = await Promise.all([getUserAt(db, site.id, userId), rolesAt(db, site.id, userId)]);
  return claimsOf(user, roles, site, scopes, variant);
}

/** The claims from an account and its roles already at hand (userinfo reads them with the token). */
export function claimsOf(user: User, roles: readonly Role[], site: Site, scopes: readonly Scope[], variant: VariantProfile): UserClaims {
  const claims: UserClaims = { sub: String(user.id), org_id: String(site.id), roles: [...roles] };
  if (scopes.includes('email')) claims.email = user.email;
  if (scopes.includes('profile')) {
    claims.name = user.name;
    if (variant.pictureClaim) claims.picture = user.avatarUrl;
  }
  return claims;
}
