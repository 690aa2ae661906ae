import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { parseDatabaseUrl, type DatabaseConfig } from '../../src/config/database-url.js';
import { DEFAULT_DATABASE_TIMEOUTS } from '../../src/config/database-timeouts.js';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export type DatabaseKind = 'sqlite' | 'mysql';

/** Every database test runs on both stores unless SCHOOLGATE_TEST_DATABASES narrows it (e.g. "sqlite"). */
export const TEST_DATABASE_KINDS: DatabaseKind[] = (process.env.SCHOOLGATE_TEST_DATABASES ?? 'sqlite,mysql')
  .split(',')
  .map((kind) => kind.trim())
  .filter((kind): kind is DatabaseKind => kind === 'sqlite' || kind === 'mysql');

/** The MySQL server tests create their scratch databases on. */
export const TEST_MYSQL_URL = process.env.SCHOOLGATE_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** The acquire timeout of the tests' own pools and servers (see testConfig in test/support/server.ts). */
export const TEST_ACQUIRE_TIMEOUT_MS = 10000;

export interface ScratchDatabase {
  kind: DatabaseKind;
  config: DatabaseConfig;
  /** DATABASE_URL for a child process (server or CLI) on the same database. */
  url: string;
  db: Database;
  drop(): Promise<void>;
}

/** A connection to the MySQL server itself (no database), for creating and dropping scratch databases and server settings. */
export function mysqlAdmin(): Database {
  const config = parseDatabaseUrl(TEST_MYSQL_URL);
  if (config.client !== 'mysql') throw new Error('SCHOOLGATE_TEST_MYSQL_URL must be a mysql:// URL');
  return knexFactory({ client: 'mysql2', connection: { host: config.host, port: config.port, user: config.user, password: config.password } });
}

/** A fresh, migrated database of the given kind that nothing else uses. */
export async function createScratchDatabase(kind: DatabaseKind, options: { migrate?: boolean } = {}): Promise<ScratchDatabase> {
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  let url: string;
  let drop: () => Promise<void>;
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-test-'));
    url = `sqlite:${path.join(dir, 'test.sqlite')}`;
    drop = async () => fs.rmSync(dir, { recursive: true, force: true });
  } else {
    const name = `schoolgate_test_${suffix}`;
    const admin = mysqlAdmin();
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.destroy();
    const base = new URL(TEST_MYSQL_URL);
    base.pathname = `/${name}`;
    url = base.toString();
    drop = async () => {
      const again = mysqlAdmin();
      await again.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await again.destroy();
    };
  }
  const config = parseDatabaseUrl(url);
  const db = openDatabase(config, undefined, { ...DEFAULT_DATABASE_TIMEOUTS, acquireMs: TEST_ACQUIRE_TIMEOUT_MS });
  if (options.migrate !== false) await migrateToLatest(db);
  return {
    kind,
    config,
    url,
    db,
    drop: async () => {
      await db.destroy();
      await drop();
    },
  };
}

/**
 * Declares the suite once per database kind, each with its own scratch database:
 * `describeEachDatabase('import', (scratch) => { it('…', async () => { const db = scratch().db; … }) })`.
 */
export function describeEachDatabase(title: string, body: (scratch: () => ScratchDatabase) => void): void {
  for (const kind of TEST_DATABASE_KINDS) {
    describe(`${title} [${kind}]`, function () {
      let current: ScratchDatabase | undefined;
      before(async function () {
        this.timeout(60000);
        current = await createScratchDatabase(kind);
      });
      after(async function () {
        await current?.drop();
      });
      body(() => {
        if (!current) throw new Error('scratch database not ready');
        return current;
      });
    });
  }
}
