import type { Knex } from 'knex';

/**
 * What a school says about a member, kept per site (docs/data-model.md, Accounts shared by schools): an account is
 * global (its email, its own name and picture, its own password), and each school it belongs to may give it a name,
 * a picture and a password of its own on its `site_memberships` row. Null means "the account's own". A school's
 * writes land here only, so one school can never change what another school shows or who can sign in there.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('site_memberships', (t) => {
    t.string('name', 191).nullable();
    t.string('avatar_url', 2048).nullable();
    // scrypt$N$r$p$salt$hash, as users.password_hash; signs the account in at this site only.
    t.string('password_hash', 255).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('site_memberships', (t) => {
    t.dropColumn('password_hash');
    t.dropColumn('avatar_url');
    t.dropColumn('name');
  });
}
