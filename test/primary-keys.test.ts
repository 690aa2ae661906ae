import { expect } from 'chai';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import type { Database } from '../src/db/connection.js';

/** Base tables of the current MySQL/MariaDB schema that have no PRIMARY KEY constraint. */
async function mysqlTablesWithoutPrimaryKey(db: Database): Promise<{ all: string[]; missing: string[] }> {
  const [rows] = (await db.raw(
    `SELECT t.TABLE_NAME AS name, MAX(c.CONSTRAINT_TYPE = 'PRIMARY KEY') AS has_pk
       FROM information_schema.TABLES t
       LEFT JOIN information_schema.TABLE_CONSTRAINTS c
         ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME AND c.CONSTRAINT_TYPE = 'PRIMARY KEY'
      WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE'
      GROUP BY t.TABLE_NAME
      ORDER BY t.TABLE_NAME`,
  )) as [Array<{ name: string; has_pk: number | string | null }>];
  return { all: rows.map((row) => row.name), missing: rows.filter((row) => Number(row.has_pk ?? 0) !== 1).map((row) => row.name) };
}

/** Tables of the SQLite schema none of whose columns is part of a primary key (pragma table_info `pk`). */
async function sqliteTablesWithoutPrimaryKey(db: Database): Promise<{ all: string[]; missing: string[] }> {
  const tables = (await db('sqlite_master').where({ type: 'table' }).andWhereNot('name', 'like', 'sqlite_%').orderBy('name').pluck('name')) as string[];
  const missing: string[] = [];
  for (const table of tables) {
    const columns = (await db.raw(`pragma table_info(\`${table}\`)`)) as Array<{ pk: number }>;
    if (!columns.some((column) => column.pk > 0)) missing.push(table);
  }
  return { all: tables, missing };
}

/**
 * Galera (MariaDB/MySQL cluster) replicates row events by primary key: a table without one cannot be replicated
 * safely (wsrep_certify_nonPK, and DELETEs on such tables are unsupported), so every table must have one.
 */
for (const kind of TEST_DATABASE_KINDS) {
  describe(`every table has a primary key, after all migrations [${kind}]`, function () {
    let scratch: ScratchDatabase | undefined;
    before(async function () {
      this.timeout(60000);
      scratch = await createScratchDatabase(kind);
    });
    after(async () => {
      await scratch?.drop();
    });

    it('lists no base table without a PRIMARY KEY, knex_migrations and knex_migrations_lock included', async () => {
      if (!scratch) throw new Error('scratch database not ready');
      const { all, missing } = kind === 'mysql' ? await mysqlTablesWithoutPrimaryKey(scratch.db) : await sqliteTablesWithoutPrimaryKey(scratch.db);
      expect(all).to.include.members(['knex_migrations', 'knex_migrations_lock', 'sites', 'users', 'token_pairs']);
      expect(all.length).to.be.above(20);
      expect(missing, 'tables without a primary key').to.deep.equal([]);
    });

    it('would notice a table without one (the check itself works)', async () => {
      if (!scratch) throw new Error('scratch database not ready');
      const db = scratch.db;
      await db.schema.createTable('pk_probe_without', (table) => {
        table.integer('n').notNullable();
        table.unique(['n']);
      });
      await db.schema.createTable('pk_probe_composite', (table) => {
        table.integer('a').notNullable();
        table.integer('b').notNullable();
        table.primary(['a', 'b']);
      });
      try {
        const { missing } = kind === 'mysql' ? await mysqlTablesWithoutPrimaryKey(db) : await sqliteTablesWithoutPrimaryKey(db);
        expect(missing).to.deep.equal(['pk_probe_without']);
      } finally {
        await db.schema.dropTable('pk_probe_without');
        await db.schema.dropTable('pk_probe_composite');
      }
    });
  });
}
