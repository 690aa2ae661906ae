import type { Knex } from 'knex';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../config/database-timeouts.js';

// Kept apart from connection.ts so that what only needs the timeouts (withTransaction, and through it the CLI's
// command definitions) does not load knex.
const timeoutsOfDatabase = new WeakMap<Knex, DatabaseTimeouts>();

/** Records the timeouts a database was opened with (openDatabase, src/db/connection.ts). */
export function rememberDatabaseTimeouts(db: Knex, timeouts: DatabaseTimeouts): void {
  timeoutsOfDatabase.set(db, timeouts);
}

/** The timeouts the database was opened with (the defaults for one opened elsewhere, e.g. a test's own knex). */
export function databaseTimeouts(db: Knex): DatabaseTimeouts {
  return timeoutsOfDatabase.get(db) ?? DEFAULT_DATABASE_TIMEOUTS;
}
