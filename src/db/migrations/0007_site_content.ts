import type { Knex } from 'knex';
import { externalId, money, reference, time, timestamps } from '../schema-helpers.js';

/** Operator-managed content behind the admin scopes: plans, subscriptions, posts, pages, comments, forms, storage. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('membership_plans', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    externalId(t, 'site_id');
    t.string('name', 191).notNullable();
    t.text('description').nullable();
    money(t, 'price');
    // month | year
    t.string('billing_interval', 8).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
  });

  await knex.schema.createTable('subscriptions', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'plan_id', 'membership_plans', 'RESTRICT');
    reference(t, 'user_id', 'users', 'CASCADE');
    // trialing | active | past_due | canceled | expired
    t.string('state', 16).notNullable();
    time(t, 'started_at').notNullable();
    time(t, 'current_period_start').notNullable();
    time(t, 'current_period_end').notNullable();
    time(t, 'canceled_at').nullable();
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
    t.index(['site_id', 'state']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('posts', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    t.string('slug', 191).notNullable();
    t.string('title', 255).notNullable();
    t.text('body').notNullable();
    reference(t, 'author_user_id', 'users', 'SET NULL', true);
    // draft | published
    t.string('status', 16).notNullable().defaultTo('draft');
    time(t, 'published_at').nullable();
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
    t.unique(['site_id', 'slug']);
  });

  await knex.schema.createTable('pages', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    t.string('slug', 191).notNullable();
    t.string('title', 255).notNullable();
    t.text('body').notNullable();
    t.string('status', 16).notNullable().defaultTo('draft');
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
    t.unique(['site_id', 'slug']);
  });

  await knex.schema.createTable('comments', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    // course | lecture | post
    t.string('target_kind', 16).notNullable();
    t.integer('target_id').unsigned().notNullable();
    t.text('body').notNullable();
    // visible | hidden
    t.string('state', 16).notNullable().defaultTo('visible');
    timestamps(t);
    t.index(['site_id', 'target_kind', 'target_id']);
  });

  await knex.schema.createTable('forms', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    t.string('title', 255).notNullable();
    // JSON array of { name, label, type, required }
    t.text('fields').notNullable();
    timestamps(t);
  });

  await knex.schema.createTable('form_responses', (t) => {
    t.increments('id');
    reference(t, 'form_id', 'forms', 'CASCADE');
    reference(t, 'user_id', 'users', 'SET NULL', true);
    t.text('answers').notNullable();
    time(t, 'submitted_at').notNullable();
    t.index(['form_id', 'submitted_at']);
  });

  // Upload slots handed out under storage:write; the object store behind them is the site's own.
  await knex.schema.createTable('storage_uploads', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    t.string('object_key', 512).notNullable();
    t.string('content_type', 128).notNullable();
    t.bigInteger('size_bytes').notNullable();
    // pending | uploaded | expired
    t.string('state', 16).notNullable();
    time(t, 'expires_at').notNullable();
    reference(t, 'created_by_client_ref', 'oauth_clients', 'SET NULL', true);
    timestamps(t);
    t.index(['site_id', 'state']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['storage_uploads', 'form_responses', 'forms', 'comments', 'pages', 'posts', 'subscriptions', 'membership_plans']) {
    await knex.schema.dropTableIfExists(table);
  }
}
