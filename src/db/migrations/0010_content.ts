import type { Knex } from 'knex';
import { reference } from '../schema-helpers.js';

/**
 * Storage uploads that really store their bytes (docs/admin-content.md, Storage uploads): the slot learns its file
 * name, when its bytes arrived and a `version` (its ETag); the bytes live in the database itself, so every server
 * instance over one database serves the same objects and nothing is written to local disk.
 *
 * The bytes are split into chunks of at most 48 KiB, one row each. A chunk fits a plain BLOB on MySQL (64 KiB) and
 * SQLite alike, and a batch of inserts stays far below MySQL's `max_allowed_packet` even though mysql2 sends a
 * Buffer as a hex literal (twice its size): one 8 MiB file is never one 16 MiB statement.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('storage_uploads', (t) => {
    t.string('filename', 255).nullable();
    t.datetime('uploaded_at', { precision: 3 }).nullable();
    t.integer('version').unsigned().notNullable().defaultTo(1);
  });
  await knex.schema.createTable('storage_upload_chunks', (t) => {
    t.increments('id');
    reference(t, 'upload_id', 'storage_uploads', 'CASCADE');
    // 0, 1, 2, … in the order of the bytes.
    t.integer('seq').unsigned().notNullable();
    t.binary('data').notNullable();
    t.unique(['upload_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('storage_upload_chunks');
  await knex.schema.alterTable('storage_uploads', (t) => {
    t.dropColumn('version');
    t.dropColumn('uploaded_at');
    t.dropColumn('filename');
  });
}
