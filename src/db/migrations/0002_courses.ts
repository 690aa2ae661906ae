import type { Knex } from 'knex';
import { externalId, money, reference, time, timestamps } from '../schema-helpers.js';

/** Courses, their curriculum, enrollments and per-lecture progress (spec: Course node, Lecture). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('courses', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    externalId(t, 'site_id');
    t.string('slug', 191).notNullable();
    t.string('title', 255).notNullable();
    t.text('description').nullable();
    t.string('cover_image_url', 2048).nullable();
    // draft | published | archived; only published courses are in the public catalogue.
    t.string('status', 16).notNullable().defaultTo('draft');
    money(t, 'price', true);
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
    t.unique(['site_id', 'slug']);
    t.index(['site_id', 'status']);
  });

  await knex.schema.createTable('course_lecturers', (t) => {
    reference(t, 'course_id', 'courses', 'CASCADE');
    reference(t, 'lecturer_profile_id', 'lecturer_profiles', 'CASCADE');
    t.integer('position').unsigned().notNullable().defaultTo(0);
    t.primary(['course_id', 'lecturer_profile_id']);
  });

  await knex.schema.createTable('course_sections', (t) => {
    t.increments('id');
    reference(t, 'course_id', 'courses', 'CASCADE');
    externalId(t, 'course_id');
    t.string('title', 255).notNullable();
    t.integer('position').unsigned().notNullable();
    timestamps(t);
    t.index(['course_id', 'position']);
  });

  await knex.schema.createTable('lectures', (t) => {
    t.increments('id');
    reference(t, 'section_id', 'course_sections', 'CASCADE');
    // Denormalised so a whole syllabus loads with one query per course set.
    reference(t, 'course_id', 'courses', 'CASCADE');
    externalId(t, 'course_id');
    t.string('title', 255).notNullable();
    t.integer('position').unsigned().notNullable();
    // video | text | audio | quiz | file
    t.string('kind', 16).notNullable().defaultTo('video');
    t.integer('duration_seconds').unsigned().notNullable().defaultTo(0);
    // A lecture is locked while `locked` is set, or until `unlock_at` passes (drip release).
    t.boolean('locked').notNullable().defaultTo(false);
    time(t, 'unlock_at').nullable();
    // Free preview lectures may be shown in the public syllabus.
    t.boolean('is_preview').notNullable().defaultTo(false);
    timestamps(t);
    t.index(['course_id', 'position']);
    t.index(['section_id', 'position']);
  });

  await knex.schema.createTable('enrollments', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'course_id', 'courses', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    externalId(t, 'site_id');
    time(t, 'enrolled_at').notNullable();
    // null with has_lifetime_access; otherwise access ends at expires_at.
    time(t, 'expires_at').nullable();
    t.boolean('has_lifetime_access').notNullable().defaultTo(false);
    // purchase | grant | import | membership
    t.string('source', 16).notNullable().defaultTo('grant');
    // Where the member left off (spec: lastWatchedLecture { lectureId positionSeconds }).
    reference(t, 'last_watched_lecture_id', 'lectures', 'SET NULL', true);
    t.integer('last_watched_position_seconds').unsigned().nullable();
    time(t, 'last_watched_at').nullable();
    timestamps(t);
    t.unique(['course_id', 'user_id']);
    t.index(['user_id', 'site_id', 'enrolled_at']);
  });

  await knex.schema.createTable('lecture_progress', (t) => {
    t.increments('id');
    reference(t, 'user_id', 'users', 'CASCADE');
    reference(t, 'lecture_id', 'lectures', 'CASCADE');
    reference(t, 'course_id', 'courses', 'CASCADE');
    // unread | read | completed; no row means unread.
    t.string('state', 16).notNullable();
    t.integer('position_seconds').unsigned().notNullable().defaultTo(0);
    time(t, 'completed_at').nullable();
    timestamps(t);
    t.unique(['user_id', 'lecture_id']);
    t.index(['user_id', 'course_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['lecture_progress', 'enrollments', 'lectures', 'course_sections', 'course_lecturers', 'courses']) {
    await knex.schema.dropTableIfExists(table);
  }
}
