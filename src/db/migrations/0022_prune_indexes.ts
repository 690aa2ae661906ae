import type { Knex } from 'knex';

/**
 * Indexes that keep the last prune rules an index range rather than a table scan (docs/housekeeping.md):
 *
 * - `api_usage.client_ref`: the prune walks the distinct clients that have counts (one index seek each) and drops the
 *   counts of those that no longer exist; without it, finding them read the whole table.
 * - `logout_deliveries.delivered_at` and `abandoned_at`: the notices delivered or given up more than the retention ago.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_usage', (t) => {
    t.index(['client_ref']);
  });
  await knex.schema.alterTable('logout_deliveries', (t) => {
    t.index(['delivered_at']);
    t.index(['abandoned_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('logout_deliveries', (t) => {
    t.dropIndex(['abandoned_at']);
    t.dropIndex(['delivered_at']);
  });
  await knex.schema.alterTable('api_usage', (t) => {
    t.dropIndex(['client_ref']);
  });
}
