import type { Knex } from 'knex';
import { externalId, money, reference, time, timestamps } from '../schema-helpers.js';

/** Consulting services, recurring slots, meetings and seats; study groups; events (spec: Consulting, Meeting state). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('consulting_services', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    externalId(t, 'site_id');
    t.string('title', 255).notNullable();
    t.text('description').nullable();
    t.integer('duration_minutes').unsigned().notNullable();
    // Seats per meeting; attendeesCount is counted against it.
    t.integer('capacity').unsigned().notNullable().defaultTo(1);
    money(t, 'price', true);
    t.string('status', 16).notNullable().defaultTo('published');
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
  });

  // A service is offered against the courses delivered to the viewer.
  await knex.schema.createTable('consulting_service_courses', (t) => {
    reference(t, 'service_id', 'consulting_services', 'CASCADE');
    reference(t, 'course_id', 'courses', 'CASCADE');
    t.primary(['service_id', 'course_id']);
    t.index(['course_id']);
  });

  // Recurring availability: every `weekday` at `start_time` in `timezone`, within the optional validity window.
  await knex.schema.createTable('consulting_slots', (t) => {
    t.increments('id');
    reference(t, 'service_id', 'consulting_services', 'CASCADE');
    externalId(t, 'service_id');
    t.integer('weekday').unsigned().notNullable();
    t.string('start_time', 5).notNullable();
    t.integer('duration_minutes').unsigned().notNullable();
    t.string('timezone', 64).notNullable();
    t.integer('capacity').unsigned().notNullable().defaultTo(1);
    reference(t, 'host_user_id', 'users', 'SET NULL', true);
    time(t, 'valid_from').nullable();
    time(t, 'valid_until').nullable();
    timestamps(t);
  });

  await knex.schema.createTable('study_groups', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    externalId(t, 'site_id');
    t.string('name', 255).notNullable();
    t.text('description').nullable();
    reference(t, 'course_id', 'courses', 'SET NULL', true);
    reference(t, 'service_id', 'consulting_services', 'SET NULL', true);
    timestamps(t);
  });

  // The roster is the attendee list of every meeting of the group (study-group meetings have no seat rows).
  await knex.schema.createTable('study_group_members', (t) => {
    reference(t, 'study_group_id', 'study_groups', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    time(t, 'joined_at').notNullable();
    t.primary(['study_group_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('study_group_sessions', (t) => {
    t.increments('id');
    reference(t, 'study_group_id', 'study_groups', 'CASCADE');
    externalId(t, 'study_group_id');
    t.integer('weekday').unsigned().notNullable();
    t.string('start_time', 5).notNullable();
    t.integer('duration_minutes').unsigned().notNullable();
    t.string('timezone', 64).notNullable();
    time(t, 'valid_from').nullable();
    time(t, 'valid_until').nullable();
    timestamps(t);
  });

  // One concrete meeting: of a consulting slot (service_id) or a study-group session (study_group_id).
  await knex.schema.createTable('meetings', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    externalId(t, 'site_id');
    reference(t, 'service_id', 'consulting_services', 'CASCADE', true);
    reference(t, 'slot_id', 'consulting_slots', 'SET NULL', true);
    reference(t, 'study_group_id', 'study_groups', 'CASCADE', true);
    reference(t, 'session_id', 'study_group_sessions', 'SET NULL', true);
    time(t, 'starts_at').notNullable();
    time(t, 'ends_at').notNullable();
    // available | scheduled | canceled (spec: Meeting state)
    t.string('state', 16).notNullable().defaultTo('available');
    t.integer('capacity').unsigned().notNullable().defaultTo(1);
    // Given only to the meeting's own attendees, only while it is live.
    t.string('room_url', 2048).nullable();
    time(t, 'confirmed_at').nullable();
    reference(t, 'confirmed_by_user_id', 'users', 'SET NULL', true);
    time(t, 'canceled_at').nullable();
    t.string('cancel_reason', 255).nullable();
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
    t.index(['service_id', 'starts_at']);
    t.index(['study_group_id', 'starts_at']);
    t.index(['site_id', 'starts_at']);
  });

  await knex.schema.createTable('meeting_seats', (t) => {
    t.increments('id');
    reference(t, 'meeting_id', 'meetings', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    time(t, 'reserved_at').notNullable();
    time(t, 'canceled_at').nullable();
    t.unique(['meeting_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('events', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    externalId(t, 'site_id');
    t.string('slug', 191).notNullable();
    t.string('title', 255).notNullable();
    t.text('description').nullable();
    time(t, 'starts_at').notNullable();
    time(t, 'ends_at').notNullable();
    t.string('timezone', 64).notNullable().defaultTo('UTC');
    // online | venue
    t.string('format', 16).notNullable().defaultTo('online');
    t.string('location', 255).nullable();
    t.string('online_url', 2048).nullable();
    t.integer('capacity').unsigned().nullable();
    // draft | published | canceled
    t.string('status', 16).notNullable().defaultTo('published');
    t.boolean('is_public').notNullable().defaultTo(true);
    money(t, 'price', true);
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
    t.unique(['site_id', 'slug']);
    t.index(['site_id', 'starts_at']);
  });

  await knex.schema.createTable('event_registrations', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'event_id', 'events', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    // registered | canceled | attended | no_show
    t.string('state', 16).notNullable().defaultTo('registered');
    t.string('ticket_code', 64).nullable();
    time(t, 'registered_at').notNullable();
    time(t, 'canceled_at').nullable();
    timestamps(t);
    t.unique(['event_id', 'user_id']);
    t.index(['user_id', 'site_id', 'registered_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['event_registrations', 'events', 'meeting_seats', 'meetings', 'study_group_sessions', 'study_group_members', 'study_groups', 'consulting_slots', 'consulting_service_courses', 'consulting_services']) {
    await knex.schema.dropTableIfExists(table);
  }
}
