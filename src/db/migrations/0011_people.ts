import type { Knex } from 'knex';
import { reference, timestamps } from '../schema-helpers.js';

/**
 * One row per (site, account) that has ever held a role at the site: the `version` behind a member's ETag in the
 * admin API (docs/admin-people.md, Concurrency). `site_roles` has one row per role and no version, so a change of
 * the role set could not be compare-and-set on it. Every writer of site_roles bumps the row
 * (src/accounts/roles.ts `recordMembershipChange`: grantRole, the importer, the admin API). The row outlives the
 * roles (removing a member bumps it), so an ETag read before a removal never matches again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('site_memberships', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
    t.unique(['site_id', 'user_id']);
    t.index(['user_id']);
  });
  // Backfill: every account with roles gets its row, dated by its oldest and newest role.
  await knex.raw(
    'INSERT INTO site_memberships (site_id, user_id, version, created_at, updated_at) ' +
      'SELECT site_id, user_id, 1, MIN(created_at), MAX(created_at) FROM site_roles GROUP BY site_id, user_id',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('site_memberships');
}
