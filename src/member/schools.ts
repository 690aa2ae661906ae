import { ROLES } from '../accounts/roles.js';
import type { MemberContext } from './context.js';

/** A site where the viewer holds at least one role (spec: viewer, `schools`). */
export interface ViewerSchoolRecord {
  /** The site id (= a variant A token's `school_id`). */
  siteId: number;
  name: string;
  subdomain: string;
  /** The site's origin (`{base_url}`), no trailing slash. */
  origin: string;
  /** Role names at that site, most privileged first (owner, operator, staff, lecturer, student, then others A–Z). */
  roles: string[];
  /** True for the site the request's token is bound to. */
  isCurrent: boolean;
}

interface SchoolRoleRow {
  site_id: number;
  name: string;
  subdomain: string;
  origin: string;
  role: string;
}

function roleRank(role: string): number {
  const index = (ROLES as readonly string[]).indexOf(role);
  return index === -1 ? ROLES.length : index;
}

/**
 * Every site where the viewer holds a role, with the role names, ordered by site name (then id). One query: the
 * member's roles joined with their sites. Only the viewer's own roles are read.
 */
export async function viewerSchools(ctx: MemberContext): Promise<ViewerSchoolRecord[]> {
  const rows: SchoolRoleRow[] = await ctx
    .db('site_roles')
    .join('sites', 'sites.id', 'site_roles.site_id')
    .where('site_roles.user_id', ctx.userId)
    .orderBy([{ column: 'sites.name' }, { column: 'sites.id' }])
    .select('sites.id as site_id', 'sites.name', 'sites.subdomain', 'sites.origin', 'site_roles.role');
  const schools = new Map<number, ViewerSchoolRecord>();
  for (const row of rows) {
    const siteId = Number(row.site_id);
    let school = schools.get(siteId);
    if (!school) {
      school = { siteId, name: row.name, subdomain: row.subdomain, origin: row.origin, roles: [], isCurrent: siteId === ctx.site.id };
      schools.set(siteId, school);
    }
    if (!school.roles.includes(row.role)) school.roles.push(row.role);
  }
  for (const school of schools.values()) school.roles.sort((a, b) => roleRank(a) - roleRank(b) || a.localeCompare(b));
  return [...schools.values()];
}
