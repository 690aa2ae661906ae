/**
 * Fast bulk fills for bench:scale: a table's secondary indexes are dropped while millions of rows go in, then created
 * again from the very definitions the store reports for them (so exactly as the migrations made them), and the
 * schema is compared before and after: the product is never measured on a table that differs from its own.
 *
 * Building an index once from sorted keys is many times cheaper than growing it by one random key per row, which is
 * what the two unique token-hash indexes cost per inserted row (a random leaf, read from disk once the index outgrows
 * the cache). Indexes a foreign key needs (MySQL/MariaDB refuse to drop those) stay in place.
 */
import type { Database } from '../../../src/db/connection.js';

export type StoreKind = 'mysql' | 'sqlite';

interface IndexDefinition {
  name: string;
  /** What recreates it: the CREATE INDEX text (SQLite) or the key clause of SHOW CREATE TABLE (MySQL). */
  definition: string;
}

function rowsOf(result: unknown): Array<Record<string, unknown>> {
  // mysql2 answers [rows, fields]; the SQLite driver answers the rows.
  if (Array.isArray(result) && Array.isArray(result[0])) return result[0] as Array<Record<string, unknown>>;
  return result as Array<Record<string, unknown>>;
}

/** The table's schema as the store prints it, normalised for comparison (line order, the auto-increment counter). */
export async function schemaOf(db: Database, kind: StoreKind, table: string): Promise<string> {
  if (kind === 'sqlite') {
    const rows = rowsOf(await db.raw("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = ? ORDER BY type, name", [table]));
    return rows.map((row) => `${String(row.type)} ${String(row.name)}: ${String(row.sql)}`).join('\n');
  }
  const [row] = rowsOf(await db.raw(`SHOW CREATE TABLE \`${table}\``));
  const text = String(row?.['Create Table'] ?? '');
  return text
    .replace(/ AUTO_INCREMENT=\d+/, '')
    .split('\n')
    .map((line) => line.trim().replace(/,$/, ''))
    .sort()
    .join('\n');
}

async function droppableIndexes(db: Database, kind: StoreKind, table: string): Promise<IndexDefinition[]> {
  if (kind === 'sqlite') {
    // Indexes SQLite makes for constraints itself (sql NULL) cannot be dropped; knex writes every index as CREATE INDEX.
    const rows = rowsOf(await db.raw("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", [table]));
    return rows.map((row) => ({ name: String(row.name), definition: String(row.sql) }));
  }
  const [row] = rowsOf(await db.raw(`SHOW CREATE TABLE \`${table}\``));
  const lines = String(row?.['Create Table'] ?? '').split('\n').map((line) => line.trim().replace(/,$/, ''));
  const foreignKeyColumns = new Set(lines.flatMap((line) => [...line.matchAll(/FOREIGN KEY \(`([^`]+)`\)/g)].map((match) => match[1])));
  const indexes: IndexDefinition[] = [];
  for (const line of lines) {
    const match = /^(?:UNIQUE )?KEY `([^`]+)` \(`([^`]+)`/.exec(line);
    if (!match?.[1] || !match[2]) continue;
    // An index whose first column has a foreign key may be the one the constraint needs: it stays.
    if (foreignKeyColumns.has(match[2])) continue;
    indexes.push({ name: match[1], definition: line });
  }
  return indexes;
}

/** CREATE INDEX sorts its keys in the page cache: a larger one for the rebuild (256 MB), then the connection's own again. */
async function rebuildInSqlite(db: Database, indexes: IndexDefinition[]): Promise<void> {
  const [row] = rowsOf(await db.raw('PRAGMA cache_size'));
  const cacheSize = Number(row?.cache_size ?? -2000);
  await db.raw('PRAGMA cache_size = -262144');
  try {
    for (const index of indexes) await db.raw(index.definition);
  } finally {
    await db.raw(`PRAGMA cache_size = ${cacheSize}`);
  }
}

/**
 * Runs `fill` with the table's droppable secondary indexes gone, then creates them again and checks that the schema
 * is what it was. Returns the milliseconds the rebuild took (part of the fill's cost).
 */
export async function withoutSecondaryIndexes(db: Database, kind: StoreKind, table: string, fill: () => Promise<void>): Promise<number> {
  const before = await schemaOf(db, kind, table);
  const indexes = await droppableIndexes(db, kind, table);
  if (kind === 'sqlite') for (const index of indexes) await db.raw(`DROP INDEX "${index.name}"`);
  else if (indexes.length > 0) await db.raw(`ALTER TABLE \`${table}\` ${indexes.map((index) => `DROP INDEX \`${index.name}\``).join(', ')}`);
  let rebuildMs = 0;
  try {
    await fill();
  } finally {
    const started = performance.now();
    if (kind === 'sqlite') await rebuildInSqlite(db, indexes);
    // One ALTER: MariaDB reads the table once and sorts each index's keys on its own.
    else if (indexes.length > 0) await db.raw(`ALTER TABLE \`${table}\` ${indexes.map((index) => `ADD ${index.definition}`).join(', ')}`);
    if (kind === 'sqlite') await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
    rebuildMs = performance.now() - started;
  }
  const after = await schemaOf(db, kind, table);
  if (after !== before) throw new Error(`the schema of ${table} differs after rebuilding its indexes:\n--- before\n${before}\n--- after\n${after}`);
  return rebuildMs;
}

/**
 * Runs `fill` on one connection set up for bulk writes, and puts it back: SQLite in one transaction with
 * synchronous = OFF (nothing is worth an fsync before the fill is whole), MySQL/MariaDB without the per-row foreign
 * key and uniqueness checks (the generated rows are valid by construction), in one transaction too.
 */
export async function bulkSession(db: Database, kind: StoreKind, fill: (connection: Database) => Promise<void>): Promise<void> {
  if (kind === 'sqlite') {
    const [row] = rowsOf(await db.raw('PRAGMA synchronous'));
    const synchronous = Number(row?.synchronous ?? 2);
    await db.raw('PRAGMA synchronous = OFF');
    try {
      await db.transaction(async (trx) => fill(trx as unknown as Database));
    } finally {
      await db.raw(`PRAGMA synchronous = ${synchronous}`);
    }
    // The one transaction left the whole fill in the write-ahead log, which every read then searches; a server's
    // own small commits never let it grow past the automatic checkpoint (1,000 pages). Copy it back and empty it.
    await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
    return;
  }
  await db.transaction(async (trx) => {
    await trx.raw('SET SESSION foreign_key_checks = 0, unique_checks = 0');
    try {
      await fill(trx as unknown as Database);
    } finally {
      await trx.raw('SET SESSION foreign_key_checks = 1, unique_checks = 1');
    }
  });
}
