import { joinSiteProfile, profileColumn } from '../accounts/site-profiles.js';
import type { UserRow } from '../data/users.js';
import { NotFoundError } from '../shared/errors.js';
import type { MemberContext } from './context.js';

/** The signed-in member's identity (spec: viewer, `id, name, email, avatar`). */
export interface ViewerRecord {
  /** The user id: the token's resource owner, the userinfo `sub`. */
  id: number;
  /** Null when the member has not set a name. */
  name: string | null;
  email: string;
  avatarUrl: string | null;
}

/** The viewer's columns of the users row, the name and avatar as the site's profile shows them (a name may be unset). */
type ViewerRow = Pick<UserRow, 'id' | 'email' | 'avatar_url'> & { name: string | null };

/** The member behind the request, as the request's site shows them (one query, cached for the request). */
export async function viewerIdentity(ctx: MemberContext): Promise<ViewerRecord> {
  const loader = ctx.loader<number, ViewerRecord | null>('viewer-identity', async (ids) => {
    const query = joinSiteProfile(ctx.db('users').whereIn('users.id', [...ids]), ctx.site.id, 'users.id');
    const rows: ViewerRow[] = await query.select('users.id', profileColumn(ctx.db, 'name', 'name'), 'users.email', profileColumn(ctx.db, 'avatar_url', 'avatar_url'));
    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    return ids.map((id) => {
      const row = byId.get(id);
      if (!row) return null;
      const name = row.name?.trim() ?? '';
      return { id: Number(row.id), name: name === '' ? null : name, email: row.email, avatarUrl: row.avatar_url || null };
    });
  });
  const viewer = await loader.load(ctx.userId);
  if (!viewer) throw new NotFoundError('the member behind this token no longer exists', 'user_not_found');
  return viewer;
}
