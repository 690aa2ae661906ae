import type { Knex } from 'knex';
import { reference, time, timestamps } from '../schema-helpers.js';

/** OAuth clients, the authorization flow's records, token pairs and signing keys (spec: OAuth client, Token record). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oauth_clients', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    // The public identifier; for a Client ID Metadata Document client it is the document's HTTPS URL.
    t.string('client_id', 768).notNullable();
    t.string('name', 191).notNullable();
    // member (account:* scopes, member GraphQL and /mcp) | operator (admin API scopes)
    t.string('audience', 16).notNullable();
    // The confidential-application checkbox: public → `none` + PKCE S256; confidential → `client_secret_post`.
    t.boolean('confidential').notNullable();
    t.string('token_endpoint_auth_method', 32).notNullable();
    t.string('secret_hash', 255).nullable();
    time(t, 'secret_rotated_at').nullable();
    t.text('redirect_uris').notNullable();
    t.text('scopes').notNullable();
    // operator_created | vendor_platform | metadata_document
    t.string('kind', 24).notNullable();
    // Unreviewed metadata-document clients may request only read and identity scopes.
    t.boolean('reviewed').notNullable().defaultTo(true);
    time(t, 'metadata_fetched_at').nullable();
    reference(t, 'created_by_user_id', 'users', 'SET NULL', true);
    t.integer('version').unsigned().notNullable().defaultTo(1);
    timestamps(t);
    // MySQL cannot index 768 utf8mb4 characters in one key; the SHA-256 of client_id carries uniqueness and lookups.
    t.string('client_id_hash', 64).notNullable();
    t.unique(['site_id', 'client_id_hash']);
  });

  // The registration endpoint's allowlist: a known vendor platform's client_name maps to its client (Authentication 5).
  await knex.schema.createTable('vendor_platforms', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    t.string('client_name', 191).notNullable();
    reference(t, 'client_ref', 'oauth_clients', 'CASCADE');
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.unique(['site_id', 'client_name']);
  });

  // An /oauth/authorize request held between the sign-in and consent pages, so any instance can finish it.
  await knex.schema.createTable('authorization_requests', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'client_ref', 'oauth_clients', 'CASCADE');
    t.string('handle_hash', 64).notNullable().unique();
    t.text('parameters').notNullable();
    reference(t, 'sign_in_session_id', 'sign_in_sessions', 'CASCADE', true);
    time(t, 'expires_at').notNullable();
    time(t, 'completed_at').nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['expires_at']);
  });

  // One token record = an access token and its refresh token with one revocation stamp (spec: Token record).
  await knex.schema.createTable('token_pairs', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'client_ref', 'oauth_clients', 'CASCADE');
    // The resource owner; null = a token with no resource owner (refused at /mcp in variant A).
    reference(t, 'user_id', 'users', 'CASCADE', true);
    t.string('access_token_hash', 64).notNullable().unique();
    t.string('refresh_token_hash', 64).nullable().unique();
    t.text('scope').notNullable();
    // RFC 8707 resource the pair is bound to: the site's origin.
    t.string('resource', 191).notNullable();
    // Variant A's school_id as issued; a refresh copies it as it was (Authentication 8).
    t.integer('school_id').unsigned().nullable();
    time(t, 'access_expires_at').notNullable();
    time(t, 'refresh_expires_at').nullable();
    time(t, 'auth_time').nullable();
    // First presentation of the access token to an API; for a refreshed pair this revokes its predecessor.
    time(t, 'first_used_at').nullable();
    time(t, 'revoked_at').nullable();
    // Refresh rotation chain: the pair this one was refreshed from, and the one minted from it.
    reference(t, 'parent_pair_id', 'token_pairs', 'SET NULL', true);
    t.integer('successor_pair_id').unsigned().nullable();
    t.integer('rotation_counter').unsigned().notNullable().defaultTo(0);
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['site_id', 'user_id']);
    t.index(['client_ref']);
  });

  await knex.schema.createTable('authorization_codes', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    reference(t, 'client_ref', 'oauth_clients', 'CASCADE');
    reference(t, 'user_id', 'users', 'CASCADE');
    t.string('code_hash', 64).notNullable().unique();
    t.string('redirect_uri', 2048).notNullable();
    t.text('scope').notNullable();
    t.string('resource', 191).notNullable();
    t.string('code_challenge', 128).notNullable();
    t.string('code_challenge_method', 8).notNullable();
    t.string('nonce', 255).nullable();
    time(t, 'auth_time').notNullable();
    time(t, 'expires_at').notNullable();
    // Single use: a replay finds consumed_at set and revokes the pair recorded here.
    time(t, 'consumed_at').nullable();
    reference(t, 'token_pair_id', 'token_pairs', 'SET NULL', true);
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['expires_at']);
  });

  // ES256 keys per site; the JWKS lists active and recently retired keys so tokens signed before a rotation verify.
  await knex.schema.createTable('signing_keys', (t) => {
    t.increments('id');
    reference(t, 'site_id', 'sites', 'CASCADE');
    t.string('kid', 64).notNullable().unique();
    t.string('alg', 16).notNullable();
    t.text('public_jwk').notNullable();
    t.text('private_jwk').notNullable();
    // active | retired
    t.string('state', 16).notNullable();
    time(t, 'activated_at').notNullable();
    time(t, 'retired_at').nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['site_id', 'state']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['signing_keys', 'authorization_codes', 'token_pairs', 'authorization_requests', 'vendor_platforms', 'oauth_clients']) {
    await knex.schema.dropTableIfExists(table);
  }
}
