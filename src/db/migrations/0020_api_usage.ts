import type { Knex } from 'knex';
import { reference, time } from '../schema-helpers.js';

/**
 * Usage of every element of the contracts, per site, client and UTC day (docs/usage.md): member API schema
 * coordinates, admin API operationIds and MCP tool names. It replaces `deprecation_usage`, whose rows it takes over:
 * the deprecation report reads the deprecated elements' rows of this table.
 *
 * `client_ref` has no foreign key: 0 stands for anonymous calls (public MCP tools), and a deleted client's rows are
 * dropped by the prune in batches rather than by a cascade inside the delete. The secondary index serves "who used
 * this element over the last N days", the other the prune's range over old days.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('api_usage', (t) => {
    reference(t, 'site_id', 'sites', 'CASCADE');
    // YYYY-MM-DD (UTC): text, so both stores compare and group it the same way.
    t.string('day', 10).notNullable();
    // graphql | admin | mcp
    t.string('api', 16).notNullable();
    t.string('element', 191).notNullable();
    t.integer('client_ref').unsigned().notNullable();
    t.bigInteger('uses').unsigned().notNullable();
    time(t, 'last_used_at').notNullable();
    t.primary(['site_id', 'day', 'api', 'element', 'client_ref']);
    t.index(['day']);
    t.index(['site_id', 'api', 'element', 'day']);
  });
  await knex.raw('INSERT INTO api_usage (site_id, day, api, element, client_ref, uses, last_used_at) SELECT site_id, day, api, element, client_ref, uses, last_used_at FROM deprecation_usage');
  await knex.schema.dropTable('deprecation_usage');
}

/**
 * Back to `deprecation_usage`: it only ever held deprecated elements' counts of known clients, but which elements
 * were deprecated is not stored, so every named client's row goes back; anonymous rows (no client to refer to) and
 * rows of clients deleted since are left out.
 */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.createTable('deprecation_usage', (t) => {
    reference(t, 'site_id', 'sites', 'CASCADE');
    t.string('api', 16).notNullable();
    t.string('element', 191).notNullable();
    reference(t, 'client_ref', 'oauth_clients', 'CASCADE');
    t.string('day', 10).notNullable();
    t.bigInteger('uses').unsigned().notNullable();
    time(t, 'last_used_at').notNullable();
    t.primary(['site_id', 'day', 'api', 'element', 'client_ref']);
    t.index(['day']);
    t.index(['client_ref']);
  });
  await knex.raw(
    "INSERT INTO deprecation_usage (site_id, api, element, client_ref, day, uses, last_used_at) SELECT u.site_id, u.api, u.element, u.client_ref, u.day, u.uses, u.last_used_at FROM api_usage u JOIN oauth_clients c ON c.id = u.client_ref WHERE u.api IN ('graphql', 'admin')",
  );
  await knex.schema.dropTable('api_usage');
}
