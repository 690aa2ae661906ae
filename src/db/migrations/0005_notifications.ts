import type { Knex } from 'knex';
import { externalId, reference, time } from '../schema-helpers.js';

/** The member inbox and per-kind, per-channel notification subscriptions (spec: viewer, variant A). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notifications', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    externalId(t, 'site_id');
    // course_update | lecture_unlocked | meeting_reminder | meeting_changed | payment | event_reminder | announcement
    t.string('kind', 32).notNullable();
    t.string('title', 255).notNullable();
    t.text('body').nullable();
    t.string('url', 2048).nullable();
    time(t, 'created_at').notNullable();
    time(t, 'read_at').nullable();
    t.index(['user_id', 'site_id', 'created_at']);
    t.index(['user_id', 'site_id', 'read_at']);
  });

  await knex.schema.createTable('notification_subscriptions', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    t.string('kind', 32).notNullable();
    // in_app | email | push
    t.string('channel', 16).notNullable();
    t.boolean('enabled').notNullable();
    time(t, 'updated_at').notNullable();
    t.unique(['site_id', 'user_id', 'kind', 'channel']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('notification_subscriptions');
  await knex.schema.dropTableIfExists('notifications');
}
