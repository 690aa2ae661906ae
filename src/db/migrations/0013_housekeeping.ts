import type { Knex } from 'knex';
import { time } from '../schema-helpers.js';

/**
 * Housekeeping (docs/housekeeping.md): the lease that lets one instance at a time run the prune job, and the
 * indexes that keep every batch of the prune an index range rather than a table scan.
 *
 * SQLite does not index foreign keys by itself, so an ON DELETE CASCADE / SET NULL from a deleted parent would scan
 * the child table once per deleted row; MySQL/MariaDB already keep an index for every foreign key, so the
 * `sqliteOnly` indexes exist only there.
 */
export async function up(knex: Knex): Promise<void> {
  const sqlite = knex.client.config.client !== 'mysql2';

  // One row per job. Taking the lease is a compare-and-set UPDATE on this row, so the database decides who runs.
  await knex.schema.createTable('job_leases', (t) => {
    t.string('name', 64).notNullable().primary();
    // Who holds the lease now (host/pid/random); null when released.
    t.string('holder', 191).nullable();
    // A holder that dies leaves its lease to expire; anyone may take it after this instant.
    time(t, 'lease_expires_at').notNullable();
    time(t, 'last_started_at').nullable();
    time(t, 'last_finished_at').nullable();
    // JSON of the last finished run (per-table counts, duration), for operators.
    t.text('last_report').nullable();
  });

  await knex.schema.alterTable('token_pairs', (t) => {
    t.index(['revoked_at']);
    // Serves "refresh expired" (prefix range) and "no refresh token, access expired" (NULL prefix, then range).
    t.index(['refresh_expires_at', 'access_expires_at']);
    if (sqlite) t.index(['parent_pair_id']);
  });
  await knex.schema.alterTable('authorization_codes', (t) => {
    t.index(['consumed_at', 'expires_at']);
    if (sqlite) t.index(['client_ref']);
  });
  await knex.schema.alterTable('sign_in_sessions', (t) => {
    t.index(['revoked_at']);
  });
  await knex.schema.alterTable('oauth_clients', (t) => {
    t.index(['kind', 'metadata_expires_at']);
  });
  if (sqlite) {
    await knex.schema.alterTable('authorization_requests', (t) => {
      t.index(['client_ref']);
      t.index(['sign_in_session_id']);
    });
    await knex.schema.alterTable('vendor_platforms', (t) => {
      t.index(['client_ref']);
    });
    await knex.schema.alterTable('storage_uploads', (t) => {
      t.index(['created_by_client_ref']);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  const sqlite = knex.client.config.client !== 'mysql2';
  if (sqlite) {
    await knex.schema.alterTable('storage_uploads', (t) => t.dropIndex(['created_by_client_ref']));
    await knex.schema.alterTable('vendor_platforms', (t) => t.dropIndex(['client_ref']));
    await knex.schema.alterTable('authorization_requests', (t) => {
      t.dropIndex(['client_ref']);
      t.dropIndex(['sign_in_session_id']);
    });
  }
  await knex.schema.alterTable('oauth_clients', (t) => t.dropIndex(['kind', 'metadata_expires_at']));
  await knex.schema.alterTable('sign_in_sessions', (t) => t.dropIndex(['revoked_at']));
  await knex.schema.alterTable('authorization_codes', (t) => {
    t.dropIndex(['consumed_at', 'expires_at']);
    if (sqlite) t.dropIndex(['client_ref']);
  });
  await knex.schema.alterTable('token_pairs', (t) => {
    t.dropIndex(['revoked_at']);
    t.dropIndex(['refresh_expires_at', 'access_expires_at']);
    if (sqlite) t.dropIndex(['parent_pair_id']);
  });
  await knex.schema.dropTableIfExists('job_leases');
}
