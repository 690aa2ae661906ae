import type { Database } from '../db/connection.js';
import { ValidationError } from '../shared/errors.js';

/** Roles a person can hold at a site. Anyone with a role, students included, can authorize a member client (Authentication 4). */
export const ROLES = ['owner', 'operator', 'staff', 'lecturer', 'student'] as const;
export type Role = (typeof ROLES)[number];

/** Roles that reach the admin API through operator clients. */
export const OPERATOR_ROLES: readonly Role[] = ['owner', 'operator', 'staff'];

export function parseRole(value: string): Role {
  const role = ROLES.find((candidate) => candidate === value);
  if (!role) throw new ValidationError(`unknown role "${value}" (one of ${ROLES.join(', ')})`, [{ pointer: '/role', message: `must be one of ${ROLES.join(', ')}` }]);
  return role;
}

/** Grants a role; granting one that is already held changes nothing. */
export async function grantRole(db: Database, siteId: number, userId: number, role: Role): Promise<{ granted: boolean }> {
  const existing = await db('site_roles').where({ site_id: siteId, user_id: userId, role }).first();
  if (existing) return { granted: false };
  await db('site_roles').insert({ site_id: siteId, user_id: userId, role, created_at: new Date() });
  return { granted: true };
}

export async function rolesAt(db: Database, siteId: number, userId: number): Promise<Role[]> {
  const rows: Array<{ role: string }> = await db('site_roles').where({ site_id: siteId, user_id: userId }).orderBy('role').select('role');
  return rows.map((row) => parseRole(row.role));
}
