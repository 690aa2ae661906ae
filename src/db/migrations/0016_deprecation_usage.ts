import type { Knex } from 'knex';
import { reference, time } from '../schema-helpers.js';

/**
 * Who still uses what is going away (docs/versioning.md, "Who still uses a deprecated element"): one row per site,
 * API, deprecated element, client and UTC day, whose `uses` every call increments (an upsert, so instances and
 * Galera nodes share the counts). `element` is a GraphQL schema coordinate (`Course.slug`) or an admin API
 * operationId. A client that is deleted takes its rows with it; the prune drops days past the retention.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deprecation_usage', (t) => {
    reference(t, 'site_id', 'sites', 'CASCADE');
    // graphql | admin
    t.string('api', 16).notNullable();
    t.string('element', 191).notNullable();
    reference(t, 'client_ref', 'oauth_clients', 'CASCADE');
    // YYYY-MM-DD (UTC): text, so both stores compare and group it the same way.
    t.string('day', 10).notNullable();
    t.bigInteger('uses').unsigned().notNullable();
    time(t, 'last_used_at').notNullable();
    t.primary(['site_id', 'day', 'api', 'element', 'client_ref']);
    // The prune's range over old days, and the foreign key's index on SQLite (MySQL keeps one of its own).
    t.index(['day']);
    t.index(['client_ref']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deprecation_usage');
}
