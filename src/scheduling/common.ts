import { joinSiteProfile, profileColumn } from '../accounts/site-profiles.js';
import { canonicalTimeZone } from '../shared/time.js';
import type { Queryable } from '../db/queries.js';
import type { FieldProblem } from '../shared/errors.js';

/** A member as the scheduling resources name one (registrations, seats). */
export interface MemberRef {
  id: number;
  name: string;
  email: string;
}

/** The IANA name as the runtime spells it, or a problem at `pointer` when the runtime knows no such zone. */
export function timeZoneOrProblem(name: string, pointer: string, problems: FieldProblem[]): string {
  const canonical = canonicalTimeZone(name);
  if (canonical === null) {
    problems.push({ pointer, message: 'is not an IANA time zone this server knows (e.g. "Asia/Taipei" or "UTC")' });
    return name;
  }
  return canonical;
}

/** `http:` or `https:` links only (the contract's `uri` format also admits `javascript:` and the like). */
export function webUrlProblem(url: string | null | undefined, pointer: string): FieldProblem | null {
  if (url === null || url === undefined) return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return null;
  } catch {
    // fall through
  }
  return { pointer, message: 'must be an http or https URL' };
}

/** A time the contract validated as RFC 3339 date-time. */
export function instant(value: string): Date {
  return new Date(value);
}

export function optionalInstant(value: string | null): Date | null {
  return value === null ? null : new Date(value);
}

export function optionalNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** Users holding at least one of `roles` (any role when omitted) at the site, by id. */
export async function usersWithRoleAt(db: Queryable, siteId: number, userIds: readonly number[], roles?: readonly string[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const query = db('site_roles').where('site_id', siteId).whereIn('user_id', [...new Set(userIds)]);
  if (roles) query.whereIn('role', [...roles]);
  const rows = (await query.distinct('user_id')) as Array<{ user_id: number | string }>;
  return new Set(rows.map((row) => Number(row.user_id)));
}

/** Id, name (as the site shows it) and email of users, by id (one query). */
export async function memberRefs(db: Queryable, siteId: number, userIds: readonly number[]): Promise<Map<number, MemberRef>> {
  if (userIds.length === 0) return new Map();
  const query = joinSiteProfile(db('users').whereIn('users.id', [...new Set(userIds)]), siteId, 'users.id');
  const rows = (await query.select('users.id', profileColumn(db, 'name', 'name'), 'users.email')) as Array<{ id: number | string; name: string; email: string }>;
  return new Map(rows.map((row) => [Number(row.id), { id: Number(row.id), name: row.name, email: row.email }]));
}

