import type { Knex } from 'knex';
import { reference } from '../schema-helpers.js';

/**
 * Admin writes made by a service client (client_credentials, RFC 6749 4.4) are attributed to it beside the columns
 * that name the person who made them: the client that created an OAuth client, confirmed a meeting or wrote a post.
 * Deleting the client keeps the rows and forgets who wrote them, as deleting a user does.
 */
const COLUMNS: ReadonlyArray<readonly [table: string, column: string]> = [
  ['oauth_clients', 'created_by_client_ref'],
  ['meetings', 'confirmed_by_client_ref'],
  ['posts', 'author_client_ref'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [table, column] of COLUMNS) {
    await knex.schema.alterTable(table, (t) => {
      reference(t, column, 'oauth_clients', 'SET NULL', true);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, column] of [...COLUMNS].reverse()) {
    await knex.schema.alterTable(table, (t) => {
      t.dropForeign([column]);
      t.dropColumn(column);
    });
  }
}
