import { setTimeout as sleep } from 'node:timers/promises';
import { isMysql, type Database } from './connection.js';
import { migrationSource } from './migrations/index.js';

const LOCK_WAIT_MS = 60000;

export class MigrationLockTimeout extends Error {
  override readonly name = 'MigrationLockTimeout';
}

/**
 * knex creates its bookkeeping tables and the single lock row with check-then-insert, so two instances starting at
 * once could insert two lock rows and never take the lock again. Creating them here with IF NOT EXISTS and a fixed
 * lock-row key makes that step idempotent.
 */
async function prepareMigrationTables(db: Database): Promise<void> {
  if (isMysql(db)) {
    await db.raw('CREATE TABLE IF NOT EXISTS knex_migrations (id int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, name varchar(255), batch int, migration_time timestamp NULL)');
    await db.raw('CREATE TABLE IF NOT EXISTS knex_migrations_lock (`index` int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, is_locked int)');
    await db.raw('INSERT IGNORE INTO knex_migrations_lock (`index`, is_locked) VALUES (1, 0)');
  } else {
    await db.raw('CREATE TABLE IF NOT EXISTS knex_migrations (id integer PRIMARY KEY AUTOINCREMENT NOT NULL, name varchar(255), batch integer, migration_time datetime)');
    await db.raw('CREATE TABLE IF NOT EXISTS knex_migrations_lock (`index` integer PRIMARY KEY AUTOINCREMENT NOT NULL, is_locked integer)');
    await db.raw('INSERT OR IGNORE INTO knex_migrations_lock (`index`, is_locked) VALUES (1, 0)');
  }
}

/**
 * Brings the schema up to date. knex takes its migration lock first; an instance that finds it taken waits for the
 * other one to finish (then has nothing left to apply) instead of failing or running a migration twice.
 */
export async function migrateToLatest(db: Database): Promise<string[]> {
  await prepareMigrationTables(db);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
      return applied;
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'MigrationLocked') throw error;
      if (Date.now() > deadline) {
        throw new MigrationLockTimeout(
          `the migration lock has been held for ${LOCK_WAIT_MS / 1000}s; if no other instance is migrating, release it with: schoolgate migrate --force-unlock`,
        );
      }
      await sleep(200 + Math.random() * 300);
    }
  }
}

export async function migrationStatus(db: Database): Promise<{ applied: string[]; pending: string[] }> {
  await prepareMigrationTables(db);
  const [completed, pending] = (await db.migrate.list({ migrationSource })) as [Array<{ name: string } | string>, Array<{ file: string } | string>];
  const name = (entry: { name: string } | { file: string } | string) => (typeof entry === 'string' ? entry : 'name' in entry ? entry.name : entry.file);
  return { applied: completed.map(name), pending: pending.map(name) };
}

/** Releases a lock left behind by an instance that died while migrating. */
export async function forceReleaseMigrationLock(db: Database): Promise<void> {
  await prepareMigrationTables(db);
  await db.migrate.forceFreeMigrationsLock({ migrationSource });
}
