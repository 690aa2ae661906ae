import type { Knex } from 'knex';

/** Whether a database is MySQL/MariaDB (else SQLite). Apart from connection.ts, so a module that only asks this loads neither knex nor a driver. */
export function isMysql(db: Knex): boolean {
  return db.client.config.client === 'mysql2';
}
