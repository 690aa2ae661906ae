import type { Knex } from 'knex';
import { time } from '../schema-helpers.js';

/**
 * The shared cache of Client ID Metadata Documents (docs/discovery-and-registration.md): a metadata-document client's
 * row is fresh until `metadata_expires_at` (from the document's Cache-Control), and the validators of the last
 * response let a stale row be revalidated with a conditional GET. In the database, so every instance shares it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_clients', (t) => {
    time(t, 'metadata_expires_at').nullable();
    t.string('metadata_etag', 255).nullable();
    t.string('metadata_last_modified', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_clients', (t) => {
    t.dropColumn('metadata_expires_at');
    t.dropColumn('metadata_etag');
    t.dropColumn('metadata_last_modified');
  });
}
