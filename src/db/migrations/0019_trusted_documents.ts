import type { Knex } from 'knex';
import { reference, time } from '../schema-helpers.js';

/**
 * Trusted documents (persisted operations, docs/trusted-documents.md): the GraphQL documents a client registered for
 * a site, addressed by the hash of their exact text, so the client can send the id alone and a site can refuse any
 * other document from clients of the kinds it lists in `sites.trusted_documents_required_for`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('trusted_documents', (t) => {
    t.increments('id').primary();
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'client_ref', 'oauth_clients', 'CASCADE');
    // `sha256:<64 hex>` or `sha1:<40 hex>`: the hash of the document's exact UTF-8 text.
    t.string('document_id', 80).notNullable();
    // MEDIUMTEXT on MySQL: a document may exceed TEXT's 64 KB (the publish bound is 100 KB).
    t.text('document', 'mediumtext').notNullable();
    // The document's operation names as a JSON array (anonymous operations are left out).
    t.text('operation_names').notNullable();
    time(t, 'published_at').notNullable();
    t.unique(['site_id', 'client_ref', 'document_id']);
    // The foreign key's index on SQLite (MySQL keeps one of its own).
    t.index(['client_ref']);
  });
  await knex.schema.alterTable('sites', (t) => {
    // A comma list of client kinds (vendor_platform, metadata_document, operator_created) that may send registered documents only.
    t.string('trusted_documents_required_for', 120).notNullable().defaultTo('');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sites', (t) => {
    t.dropColumn('trusted_documents_required_for');
  });
  await knex.schema.dropTable('trusted_documents');
}
