import type { Database } from './connection.js';
import { migrationSource } from './migrations/index.js';

/**
 * Brings the schema up to date. knex takes its migration lock (knex_migrations_lock) first, so a second
 * instance starting against the same database waits instead of running the same migration twice.
 */
export async function migrateToLatest(db: Database): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

export async function migrationStatus(db: Database): Promise<{ applied: string[]; pending: string[] }> {
  const [completed, pending] = (await db.migrate.list({ migrationSource })) as [Array<{ name: string } | string>, string[]];
  return { applied: completed.map((entry) => (typeof entry === 'string' ? entry : entry.name)), pending };
}
