import type { Knex } from 'knex';
import { time } from '../schema-helpers.js';

/**
 * The admin API's member list reads one index range per page (docs/admin-people.md, List; docs/performance.md, A site
 * with 100,000 members): it lists `site_memberships`, one row per (site, account), instead of grouping every role row
 * of the site per account. Each row carries what the list sorts and searches on, kept by every write of the roles or
 * the name (src/accounts/membership-keys.ts):
 *
 * - `joined_at`: when the member's oldest current role was given; null while the account holds no role here (the row
 *   outlives the roles, see 0011), so "is a member" is `joined_at IS NOT NULL`.
 * - `name_key`: the lower-cased name the site shows (its own, else the account's), for the case-insensitive sort and
 *   the prefix search on both stores (SQLite compares bytes).
 * - `email_key`: the account's email (stored normalised, lower case). `users.email` is global, so its unique index
 *   cannot give one site's members in email order; this copy under (site_id, email_key) can. An account's email
 *   never changes after it is created.
 *
 * One index per sort order, (site_id, sort key, user_id: the list's tie-breaker), so a page and its cursor are a range;
 * the name and email indexes end in `joined_at` too, so the list's positions are read from the index alone.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('site_memberships', (t) => {
    time(t, 'joined_at').nullable();
    t.string('name_key', 191).notNullable().defaultTo('');
    t.string('email_key', 191).notNullable().defaultTo('');
  });
  // Every member has its row (recordMembershipChange creates it); create any that data older than that lacks.
  await knex.raw(
    'INSERT INTO site_memberships (site_id, user_id, version, created_at, updated_at) ' +
      'SELECT r.site_id, r.user_id, 1, MIN(r.created_at), MAX(r.created_at) FROM site_roles r ' +
      'WHERE NOT EXISTS (SELECT 1 FROM site_memberships m WHERE m.site_id = r.site_id AND m.user_id = r.user_id) ' +
      'GROUP BY r.site_id, r.user_id',
  );
  await knex.raw(
    'UPDATE site_memberships SET ' +
      'joined_at = (SELECT MIN(r.created_at) FROM site_roles r WHERE r.site_id = site_memberships.site_id AND r.user_id = site_memberships.user_id), ' +
      'name_key = LOWER(COALESCE(site_memberships.name, (SELECT u.name FROM users u WHERE u.id = site_memberships.user_id))), ' +
      'email_key = (SELECT u.email FROM users u WHERE u.id = site_memberships.user_id)',
  );
  await knex.schema.alterTable('site_memberships', (t) => {
    t.index(['site_id', 'joined_at', 'user_id']);
    t.index(['site_id', 'name_key', 'user_id', 'joined_at']);
    t.index(['site_id', 'email_key', 'user_id', 'joined_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('site_memberships', (t) => {
    t.dropIndex(['site_id', 'email_key', 'user_id', 'joined_at']);
    t.dropIndex(['site_id', 'name_key', 'user_id', 'joined_at']);
    t.dropIndex(['site_id', 'joined_at', 'user_id']);
  });
  await knex.schema.alterTable('site_memberships', (t) => {
    t.dropColumn('email_key');
    t.dropColumn('name_key');
    t.dropColumn('joined_at');
  });
}
