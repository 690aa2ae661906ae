import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Knex } from 'knex';

/**
 * Floor C: userinfo by hand. One indexed join finds the token, its site, client, user, the user's profile at the site
 * and roles; the route checks what the product checks (origin binding, revocation, expiry, openid) and answers the same
 * claims.
 */
export function mountUserinfoFloor(router: Router, db: Knex): void {
  const variant = process.env.SCHOOLGATE_VARIANT ?? 'A';
  router.get('/floor/userinfo', async (ctx) => {
    const token = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1] ?? '';
    const rows: Array<Record<string, unknown>> = await db('token_pairs as t')
      .join('sites as s', 's.id', 't.site_id')
      .join('oauth_clients as c', 'c.id', 't.client_ref')
      .join('users as u', 'u.id', 't.user_id')
      .leftJoin('site_roles as r', (on) => on.on('r.site_id', 't.site_id').andOn('r.user_id', 't.user_id'))
      // The member's name and picture at this site, else the account's own.
      .leftJoin('site_memberships as p', (on) => on.on('p.site_id', 't.site_id').andOn('p.user_id', 't.user_id'))
      .where('t.access_token_hash', createHash('sha256').update(token).digest('hex'))
      .select('t.site_id', 't.scope', 't.resource', 't.revoked_at', 't.access_expires_at', 's.origin', 'u.id', 'u.email', db.raw('COALESCE(p.name, u.name) as name'), db.raw('COALESCE(p.avatar_url, u.avatar_url) as avatar_url'), 'r.role');
    const first = rows[0];
    const expires = first ? new Date(first.access_expires_at as string | number | Date).getTime() : 0;
    if (!first || first.revoked_at !== null || expires <= Date.now() || first.resource !== first.origin) {
      ctx.status = 401;
      ctx.body = { error: 'invalid_token' };
      return;
    }
    const scopes = String(first.scope).split(' ');
    if (!scopes.includes('openid')) {
      ctx.status = 403;
      ctx.body = { error: 'insufficient_scope' };
      return;
    }
    const roles = rows.map((row) => row.role).filter((role): role is string => typeof role === 'string').sort();
    const claims: Record<string, unknown> = { sub: String(first.id), org_id: String(first.site_id), roles };
    if (scopes.includes('email')) claims.email = first.email;
    if (scopes.includes('profile')) {
      claims.name = first.name;
      if (variant === 'A') claims.picture = first.avatar_url;
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = claims;
  });
}
