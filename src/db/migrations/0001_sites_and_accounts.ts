import type { Knex } from 'knex';
import { reference, time, timestamps } from '../schema-helpers.js';

/** Sites (one origin = one school), global user accounts, per-site roles, sign-in sessions. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sites', (t) => {
    t.increments('id');
    t.string('origin', 191).notNullable().unique();
    t.string('subdomain', 63).notNullable().unique();
    t.string('name', 191).notNullable();
    t.text('description').nullable();
    t.string('timezone', 64).notNullable().defaultTo('UTC');
    t.string('default_currency', 3).notNullable().defaultTo('USD');
    t.string('contact_email', 191).nullable();
    // Developers > OAuth applications appears only once this beta flag is on (spec, Authentication 4).
    t.boolean('mcp_connections_enabled').notNullable().defaultTo(false);
    // Client ID Metadata Documents from any host when on; otherwise only allowlisted hosts (Authentication 5).
    t.boolean('open_registration').notNullable().defaultTo(false);
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
  });

  await knex.schema.createTable('site_appearance', (t) => {
    t.integer('site_id').unsigned().primary();
    t.foreign('site_id').references('id').inTable('sites').onDelete('CASCADE');
    t.string('primary_color', 16).nullable();
    t.string('accent_color', 16).nullable();
    t.string('logo_url', 2048).nullable();
    t.string('favicon_url', 2048).nullable();
    t.string('cover_image_url', 2048).nullable();
    t.text('custom_css').nullable();
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
  });

  await knex.schema.createTable('site_metadata_document_hosts', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    t.string('host', 191).notNullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.unique(['site_id', 'host']);
  });

  await knex.schema.createTable('users', (t) => {
    t.increments('id');
    t.string('email', 191).notNullable().unique();
    t.string('name', 191).notNullable();
    t.string('avatar_url', 2048).nullable();
    // scrypt$N$r$p$salt$hash; null for accounts that cannot sign in with a password.
    t.string('password_hash', 255).nullable();
    timestamps(t);
  });

  await knex.schema.createTable('site_roles', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    // operator, staff, lecturer, student, … (open set; operator is the admin role).
    t.string('role', 32).notNullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.unique(['site_id', 'user_id', 'role']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('lecturer_profiles', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    t.string('display_name', 191).notNullable();
    t.text('bio').nullable();
    t.string('avatar_url', 2048).nullable();
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
    t.unique(['site_id', 'user_id']);
  });

  // The browser session behind the sign-in and consent pages; the cookie carries a token whose hash is stored.
  await knex.schema.createTable('sign_in_sessions', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE', true);
    t.string('token_hash', 64).notNullable().unique();
    t.string('csrf_secret', 64).notNullable();
    time(t, 'authenticated_at').nullable();
    time(t, 'expires_at').notNullable();
    time(t, 'revoked_at').nullable();
    t.string('user_agent', 512).nullable();
    timestamps(t);
    t.index(['expires_at']);
  });

  // Fixed-window counters (sign-in attempts, …) shared by every instance over one database.
  await knex.schema.createTable('rate_limit_counters', (t) => {
    t.string('bucket', 191).notNullable();
    time(t, 'window_start').notNullable();
    t.integer('hits').unsigned().notNullable();
    time(t, 'expires_at').notNullable();
    t.primary(['bucket', 'window_start']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['rate_limit_counters', 'sign_in_sessions', 'lecturer_profiles', 'site_roles', 'users', 'site_metadata_document_hosts', 'site_appearance', 'sites']) {
    await knex.schema.dropTableIfExists(table);
  }
}
