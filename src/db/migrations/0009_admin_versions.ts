import type { Knex } from 'knex';

/**
 * A `version` column (the admin API's ETag, docs/admin-api.md Concurrency) on the rows operators change that were
 * created without one: curriculum sections and lectures, enrollments, consulting slots and event registrations.
 */
const TABLES = ['course_sections', 'lectures', 'enrollments', 'consulting_slots', 'event_registrations'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.integer('version').unsigned().notNullable().defaultTo(1);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('version');
    });
  }
}
