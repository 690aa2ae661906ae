import type { Knex } from 'knex';
import type { Database } from '../db/connection.js';
import { ConflictError } from '../shared/errors.js';

/** Helpers shared by the content modules (posts, pages, comments, forms, appearance). */

export type Queryable = Database | Knex.Transaction;

/** `draft` (not shown on the site) or `published`: posts and pages. */
export type ContentStatus = 'draft' | 'published';

export function contentStatusOf(value: unknown): ContentStatus {
  return value === 'published' ? 'published' : 'draft';
}

/** A user of the site, as the admin API shows authors and respondents. */
export interface UserRef {
  id: number;
  name: string;
}

/** A unique index refused the write: `ER_DUP_ENTRY` (MySQL/MariaDB) or `SQLITE_CONSTRAINT_UNIQUE`/`_PRIMARYKEY`. */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function slugTaken(kind: 'post' | 'page', slug: string): ConflictError {
  return new ConflictError(`Another ${kind} of this site already has the slug "${slug}". Choose another slug.`, 'slug_taken');
}

/**
 * A case-insensitive substring search over `columns`, the same on SQLite and MySQL: `lower(column) LIKE lower(text)`
 * with `%`, `_` and the escape character itself escaped (`!`, named explicitly: SQLite has no default escape).
 */
export function whereContains(builder: Knex.QueryBuilder, columns: readonly string[], text: string): void {
  const pattern = `%${text.toLowerCase().replace(/[!%_]/g, (character) => `!${character}`)}%`;
  builder.andWhere((search) => {
    for (const column of columns) search.orWhereRaw(`lower(??) like ? escape '!'`, [column, pattern]);
  });
}

/** Whether `userId` is an account with a role at the site (authors of posts must be). */
export async function isSiteUser(db: Queryable, siteId: number, userId: number): Promise<boolean> {
  const row = (await db('site_roles').where({ site_id: siteId, user_id: userId }).first('id')) as { id: number } | undefined;
  return row !== undefined;
}
