import { loadConfig } from '../config/config.js';
import type { Database } from '../db/connection.js';

/** Opens the database named by the same configuration as the server (DATABASE_URL, …), migrated, for one command. */
export async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Loaded here, not at start-up: knex and the migrations are most of what a command loads (see program.ts).
  const [{ openDatabase }, { migrateToLatest }] = await Promise.all([import('../db/connection.js'), import('../db/migrate.js')]);
  const db = openDatabase(config.database, undefined, config.databaseTimeouts);
  try {
    await migrateToLatest(db);
    return await work(db);
  } finally {
    await db.destroy();
  }
}
