import type { Knex } from 'knex';

/**
 * Private signing keys encrypted at rest (docs/signing-keys.md): `private_jwk` now holds a compact JWE of the private
 * JWK, and `encryption_key_id` names the key-encryption key that made it, so the rotation command finds the rows
 * still under another key without decrypting anything. Null = a plain private JWK stored before this migration; such
 * a row is encrypted the first time it is used, or by `schoolgate keys rotate-encryption-key`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('signing_keys', (t) => {
    t.string('encryption_key_id', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('signing_keys', (t) => {
    t.dropColumn('encryption_key_id');
  });
}
