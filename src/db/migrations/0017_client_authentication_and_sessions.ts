import type { Knex } from 'knex';
import { reference, time } from '../schema-helpers.js';

/**
 * What clients bring beyond a shared secret, and what a sign-in session ends:
 * - oauth_clients: registered keys for private_key_jwt (RFC 7523; `jwks` or `jwks_uri`), DPoP-bound tokens required
 *   (RFC 9449 5.2 `dpop_bound_access_tokens`), and the logout addresses of RP-Initiated and Back-Channel Logout;
 * - sign_in_sessions.sid: the public session id id_tokens and logout tokens carry (OIDC Back-Channel Logout 2.1);
 * - authorization_codes and token_pairs: the session a grant was approved in, the DPoP key a pair is bound to
 *   (`cnf.jkt`, RFC 9449 6) and, for connected apps, when a pair was last used (kept to the hour);
 * - used_jtis: single-use `jti`s of client assertions and DPoP proofs, shared by every instance (a primary key
 *   conflict is a replay);
 * - logout_deliveries: the back-channel logout outbox, delivered with retries by the interval job.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_clients', (t) => {
    t.text('jwks').nullable();
    t.string('jwks_uri', 2048).nullable();
    t.boolean('dpop_bound_access_tokens').notNullable().defaultTo(false);
    t.text('post_logout_redirect_uris').nullable();
    t.string('backchannel_logout_uri', 2048).nullable();
  });
  await knex.schema.alterTable('sign_in_sessions', (t) => {
    t.string('sid', 64).nullable().unique();
  });
  await knex.schema.alterTable('authorization_codes', (t) => {
    t.string('sid', 64).nullable();
    t.string('dpop_jkt', 64).nullable();
  });
  await knex.schema.alterTable('token_pairs', (t) => {
    t.string('sid', 64).nullable();
    t.string('dpop_jkt', 64).nullable();
    time(t, 'last_used_at').nullable();
    t.index(['sid']);
  });
  await knex.schema.createTable('used_jtis', (t) => {
    // client_assertion | dpop
    t.string('purpose', 16).notNullable();
    // SHA-256 of the issuer (client or key thumbprint) and the jti, so any length of jti fits one key.
    t.string('jti_hash', 64).notNullable();
    time(t, 'expires_at').notNullable();
    t.primary(['purpose', 'jti_hash']);
    t.index(['expires_at']);
  });
  await knex.schema.createTable('logout_deliveries', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'client_ref', 'oauth_clients', 'CASCADE');
    t.string('backchannel_logout_uri', 2048).notNullable();
    t.text('logout_token').notNullable();
    t.integer('attempts').unsigned().notNullable().defaultTo(0);
    time(t, 'next_attempt_at').notNullable();
    time(t, 'delivered_at').nullable();
    // Set when the retries are spent; the row stays for operators until the prune.
    time(t, 'abandoned_at').nullable();
    t.string('last_error', 512).nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['next_attempt_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('logout_deliveries');
  await knex.schema.dropTableIfExists('used_jtis');
  await knex.schema.alterTable('token_pairs', (t) => {
    t.dropIndex(['sid']);
    t.dropColumn('sid');
    t.dropColumn('dpop_jkt');
    t.dropColumn('last_used_at');
  });
  await knex.schema.alterTable('authorization_codes', (t) => {
    t.dropColumn('sid');
    t.dropColumn('dpop_jkt');
  });
  await knex.schema.alterTable('sign_in_sessions', (t) => {
    t.dropUnique(['sid']);
    t.dropColumn('sid');
  });
  await knex.schema.alterTable('oauth_clients', (t) => {
    for (const column of ['jwks', 'jwks_uri', 'dpop_bound_access_tokens', 'post_logout_redirect_uris', 'backchannel_logout_uri']) t.dropColumn(column);
  });
}
