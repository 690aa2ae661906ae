import type { Database } from '../db/connection.js';
import { membershipKeyUpdates, newMembershipKeys } from './membership-keys.js';
import type { Queryable } from '../db/queries.js';
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
  const now = new Date();
  await db('site_roles').insert({ site_id: siteId, user_id: userId, role, created_at: now });
  await recordMembershipChange(db, siteId, userId, now);
  return { granted: true };
}

/**
 * Every change of an account's roles at a site bumps its `site_memberships` row (created on the first role), whose
 * version is the member's ETag in the admin API (docs/admin-people.md, Concurrency), and refreshes in the same
 * statement what the member list sorts on (src/accounts/membership-keys.ts): the list shows exactly the rows whose
 * account holds a role, so a writer of site_roles that skipped this call would hide or keep a member there. Call it
 * after writing site_roles, in the same transaction when there is one.
 */
export async function recordMembershipChange(db: Queryable, siteId: number, userId: number, now: Date = new Date()): Promise<void> {
  await db('site_memberships')
    .insert({ site_id: siteId, user_id: userId, version: 1, created_at: now, updated_at: now, ...newMembershipKeys(db, siteId, userId) })
    .onConflict(['site_id', 'user_id'])
    .merge({ version: db.raw('?? + 1', ['site_memberships.version']), updated_at: now, ...membershipKeyUpdates(db) });
}

export async function rolesAt(db: Database, siteId: number, userId: number): Promise<Role[]> {
  const rows: Array<{ role: string }> = await db('site_roles').where({ site_id: siteId, user_id: userId }).orderBy('role').select('role');
  return rows.map((row) => parseRole(row.role));
}

/** Whether the account holds any role at the site: what makes it a member there (authors, lecturers, owners, students). */
export async function isSiteMember(db: Queryable, siteId: number, userId: number): Promise<boolean> {
  return (await db('site_roles').where({ site_id: siteId, user_id: userId }).first('id')) !== undefined;
}
