import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomToken } from '../shared/random.js';
import { isMysql, type Database } from './connection.js';
import { migrationSource } from './migrations/index.js';
import { isTransactionConflict } from '../shared/failure.js';

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
    await db.raw('CREATE TABLE IF NOT EXISTS schoolgate_migration_lock (id int unsigned NOT NULL PRIMARY KEY, holder varchar(191) NULL, expires_at datetime(3) NULL)');
    await db.raw('INSERT IGNORE INTO schoolgate_migration_lock (id, holder, expires_at) VALUES (1, NULL, NULL)');
  } else {
    await db.raw('CREATE TABLE IF NOT EXISTS knex_migrations (id integer PRIMARY KEY AUTOINCREMENT NOT NULL, name varchar(255), batch integer, migration_time datetime)');
    await db.raw('CREATE TABLE IF NOT EXISTS knex_migrations_lock (`index` integer PRIMARY KEY AUTOINCREMENT NOT NULL, is_locked integer)');
    await db.raw('INSERT OR IGNORE INTO knex_migrations_lock (`index`, is_locked) VALUES (1, 0)');
    await db.raw('CREATE TABLE IF NOT EXISTS schoolgate_migration_lock (id integer PRIMARY KEY NOT NULL, holder varchar(191) NULL, expires_at datetime NULL)');
    await db.raw('INSERT OR IGNORE INTO schoolgate_migration_lock (id, holder, expires_at) VALUES (1, NULL, NULL)');
  }
}

/** How long a migrating instance may hold the lock before another may take it over (a crash leaves it behind). */
const MIGRATION_LOCK_TTL_MS = 10 * 60 * 1000;

/**
 * Our own migration lock, taken by a committed compare-and-set before knex runs. knex's lock is an UPDATE inside the
 * transaction that wraps the migrations, and MySQL commits it only at the first DDL statement: on a multi-primary
 * cluster two nodes can both take it locally and learn too late that one lost. A committed UPDATE is certified at
 * once: of two nodes taking this one at the same moment, exactly one succeeds.
 */
async function takeMigrationLock(db: Database, holder: string): Promise<boolean> {
  const now = new Date();
  try {
    const taken = await db('schoolgate_migration_lock')
      .where({ id: 1 })
      .andWhere((free) => free.whereNull('holder').orWhere('expires_at', '<', now))
      .update({ holder, expires_at: new Date(now.getTime() + MIGRATION_LOCK_TTL_MS) });
    return taken === 1;
  } catch (error) {
    if (isTransactionConflict(error)) return false;
    throw error;
  }
}

async function releaseMigrationLock(db: Database, holder: string): Promise<void> {
  await db('schoolgate_migration_lock').where({ id: 1, holder }).update({ holder: null, expires_at: null });
}

/**
 * Brings the schema up to date under the migration lock; an instance that finds it taken, or loses it in a conflict,
 * waits for the other one to finish (then has nothing left to apply) instead of failing or running a migration twice.
 */
export async function migrateToLatest(db: Database): Promise<string[]> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  const holder = `${os.hostname()}/${process.pid}/${randomToken(6)}`;
  for (;;) {
    try {
      await prepareMigrationTables(db);
      if (await takeMigrationLock(db, holder)) {
        try {
          const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
          return applied;
        } finally {
          await releaseMigrationLock(db, holder);
        }
      }
    } catch (error) {
      // knex's own lock still held (an instance that died while migrating), or a conflict with a node doing the same:
      // wait and look again.
      if (!(error instanceof Error) || (error.name !== 'MigrationLocked' && !isTransactionConflict(error))) throw error;
    }
    if (Date.now() > deadline) {
      throw new MigrationLockTimeout(
        `the migration lock has been held for ${LOCK_WAIT_MS / 1000}s; if no other instance is migrating, release it with: schoolgate migrate --force-unlock`,
      );
    }
    await sleep(200 + Math.random() * 300);
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
  await db('schoolgate_migration_lock').where({ id: 1 }).update({ holder: null, expires_at: null });
  await db.migrate.forceFreeMigrationsLock({ migrationSource });
}
