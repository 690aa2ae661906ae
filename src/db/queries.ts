import type { Knex } from 'knex';
import type { Database } from './connection.js';

/** Query building blocks written once for both stores (SQLite and MySQL/MariaDB). */

/** The database, or a transaction on it: what the domain modules' functions run on. */
export type Queryable = Database | Knex.Transaction;

/** A LIKE pattern matching the lower-cased `text` anywhere, LIKE's wildcards and `!` escaped with `!`. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, (character) => `!${character}`)}%`;
}

/**
 * A case-insensitive substring search over `columns` (any of them matches), the same on both stores:
 * `lower(column) like pattern escape '!'` (SQLite has no default LIKE escape character, so it is named).
 */
export function whereContains(builder: Knex.QueryBuilder, columns: readonly string[], text: string): void {
  const pattern = containsPattern(text);
  builder.andWhere((search) => {
    for (const column of columns) search.orWhereRaw(`lower(??) like ? escape '!'`, [column, pattern]);
  });
}

/** A write refused by a unique index: `ER_DUP_ENTRY` (MySQL/MariaDB) or `SQLITE_CONSTRAINT_UNIQUE`/`_PRIMARYKEY`. */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A count column as a number (drivers answer numbers, bigint strings or null). */
export function countOf(value: unknown): number {
  return value === null || value === undefined ? 0 : Number(value);
}
