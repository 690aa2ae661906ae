import type { Knex } from 'knex';

/**
 * Token families: every pair carries the grant (one completed authorization, one authorization code) it descends
 * from, so revoking any token of a grant revokes all of its pairs in one statement, and `revoked_reason` tells a
 * pair retired by rotation (presenting its refresh token again is reuse) from one superseded before it was ever
 * received (a lost-response retry) and from an explicit revocation.
 *
 * grant_id is added NOT NULL with an empty default so existing rows can be backfilled; MySQL then drops the default.
 * (SQLite cannot change a column default in place; the application always writes grant_id.)
 */
export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  await knex.schema.alterTable('token_pairs', (t) => {
    t.string('grant_id', 32).notNullable().defaultTo('');
    // rotated | superseded | revoked | reused (see src/oauth/tokens/store.ts)
    t.string('revoked_reason', 16).nullable();
    t.index(['grant_id']);
  });
  await knex.schema.alterTable('authorization_codes', (t) => {
    t.string('grant_id', 32).notNullable().defaultTo('');
  });

  // Backfill pairs: a pair with no parent starts its own family; children inherit, one generation per pass.
  const concatId = (prefix: string) => (mysql ? `CONCAT('${prefix}', id)` : `'${prefix}' || id`);
  await knex.raw(`UPDATE token_pairs SET grant_id = ${concatId('p')}, revoked_reason = CASE WHEN revoked_at IS NULL THEN NULL ELSE 'revoked' END WHERE parent_pair_id IS NULL`);
  await knex.raw(`UPDATE token_pairs SET revoked_reason = 'revoked' WHERE revoked_at IS NOT NULL AND revoked_reason IS NULL`);
  for (;;) {
    const result: unknown = mysql
      ? await knex.raw("UPDATE token_pairs c JOIN token_pairs p ON c.parent_pair_id = p.id SET c.grant_id = p.grant_id WHERE c.grant_id = '' AND p.grant_id <> ''")
      : await knex.raw(
          "UPDATE token_pairs SET grant_id = (SELECT p.grant_id FROM token_pairs p WHERE p.id = token_pairs.parent_pair_id) WHERE grant_id = '' AND parent_pair_id IN (SELECT id FROM token_pairs WHERE grant_id <> '')",
        );
    if (changedRows(result) === 0) break;
  }
  // Codes: a consumed code names the family of the pair it issued; any other code gets a family of its own.
  await knex.raw("UPDATE authorization_codes SET grant_id = (SELECT p.grant_id FROM token_pairs p WHERE p.id = authorization_codes.token_pair_id) WHERE token_pair_id IS NOT NULL");
  await knex.raw(`UPDATE authorization_codes SET grant_id = ${concatId('c')} WHERE grant_id = '' OR grant_id IS NULL`);
  await knex.schema.alterTable('authorization_codes', (t) => {
    if (mysql) t.dropForeign(['token_pair_id']);
    t.dropColumn('token_pair_id');
    t.index(['grant_id']);
  });
  if (mysql) {
    await knex.raw('ALTER TABLE token_pairs ALTER COLUMN grant_id DROP DEFAULT');
    await knex.raw('ALTER TABLE authorization_codes ALTER COLUMN grant_id DROP DEFAULT');
  }
}

/** Rows changed by a raw UPDATE: mysql2 answers [ResultSetHeader, …], better-sqlite3 through knex answers RunResult-like objects. */
function changedRows(result: unknown): number {
  const first = Array.isArray(result) ? (result[0] as unknown) : result;
  const record = first as { affectedRows?: number; changes?: number } | undefined;
  return Number(record?.affectedRows ?? record?.changes ?? 0);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('authorization_codes', (t) => {
    t.dropIndex(['grant_id']);
    t.dropColumn('grant_id');
    t.integer('token_pair_id').unsigned().nullable();
  });
  await knex.schema.alterTable('token_pairs', (t) => {
    t.dropIndex(['grant_id']);
    t.dropColumn('grant_id');
    t.dropColumn('revoked_reason');
  });
}
