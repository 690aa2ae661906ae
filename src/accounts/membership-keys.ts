import type { Knex } from 'knex';
import type { Queryable } from '../db/queries.js';

/**
 * What the admin API's member list sorts and searches on, kept on each `site_memberships` row (migration 0021,
 * docs/admin-people.md, List) so that a page is one index range: `joined_at` (the oldest current role; null while the
 * account holds none here), `name_key` (the lower-cased name the site shows) and `email_key` (the account's email).
 * Every write of a member's roles or of the site's name for them refreshes them: recordMembershipChange
 * (src/accounts/roles.ts) in its own statement, the others through refreshMembershipKeys.
 */

/** The oldest current role of the row's account at the row's site (null when it holds none). */
const JOINED_AT = '(SELECT MIN(r.created_at) FROM site_roles r WHERE r.site_id = site_memberships.site_id AND r.user_id = site_memberships.user_id)';
/** The name the site shows, lower-cased in SQL so that every writer and the search fold case alike. */
const NAME_KEY = 'LOWER(COALESCE(site_memberships.name, (SELECT u.name FROM users u WHERE u.id = site_memberships.user_id)))';
const EMAIL_KEY = '(SELECT u.email FROM users u WHERE u.id = site_memberships.user_id)';

/** The keys as SET expressions over the row being written (an UPDATE, or an upsert's conflict branch). */
export function membershipKeyUpdates(db: Queryable): { joined_at: Knex.Raw; name_key: Knex.Raw; email_key: Knex.Raw } {
  return { joined_at: db.raw(JOINED_AT), name_key: db.raw(NAME_KEY), email_key: db.raw(EMAIL_KEY) };
}

/** The keys of a row about to be inserted for (site, account), which has no site name yet. */
export function newMembershipKeys(db: Queryable, siteId: number, userId: number): { joined_at: Knex.Raw; name_key: Knex.Raw; email_key: Knex.Raw } {
  return {
    joined_at: db.raw('(SELECT MIN(r.created_at) FROM site_roles r WHERE r.site_id = ? AND r.user_id = ?)', [siteId, userId]),
    name_key: db.raw('LOWER((SELECT u.name FROM users u WHERE u.id = ?))', [userId]),
    email_key: db.raw('(SELECT u.email FROM users u WHERE u.id = ?)', [userId]),
  };
}

/** SQLite binds at most 999 variables per statement in old builds; 500 accounts per UPDATE stays well below. */
const CHUNK = 500;

/**
 * Recomputes the keys of these accounts' rows at the site from site_roles, the site's name and the account, one
 * UPDATE per 500 accounts. Call it after writing roles or `site_memberships.name` without recordMembershipChange, in
 * the same transaction.
 */
export async function refreshMembershipKeys(db: Queryable, siteId: number, userIds: readonly number[]): Promise<void> {
  for (let start = 0; start < userIds.length; start += CHUNK) {
    const chunk = userIds.slice(start, start + CHUNK);
    await db('site_memberships').where('site_id', siteId).whereIn('user_id', chunk).update(membershipKeyUpdates(db));
  }
}
