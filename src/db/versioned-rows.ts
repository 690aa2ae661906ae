import { ConflictError, NotFoundError } from '../shared/errors.js';
import type { Queryable } from './queries.js';

/**
 * Optimistic concurrency for rows with a `version` column (docs/admin-api.md, Concurrency): a change is applied only
 * to the version the caller read (its ETag), as one compare-and-set `UPDATE … WHERE version = ?`, so of two writers
 * based on the same version exactly one wins; every write increments the version and moves `updated_at`.
 */

export function versionMismatch(what: string): ConflictError {
  return new ConflictError(`The ${what} was changed by someone else; read it again and retry.`, 'version_mismatch');
}

/**
 * Applies `changes` to the one row `where` selects if it is still at `expectedVersion`. An empty change writes nothing
 * but still needs the version to match. NotFoundError when no row matches `where`; ConflictError `version_mismatch`
 * when it exists at another version (rendered as 412 by the admin API).
 */
export async function updateVersionedRow(
  db: Queryable,
  table: string,
  where: Readonly<Record<string, string | number>>,
  expectedVersion: number,
  changes: Readonly<Record<string, unknown>>,
  labels: { what: string; notFound: string },
): Promise<void> {
  if (Object.keys(changes).length > 0) {
    const updated = await db(table)
      .where({ ...where, version: expectedVersion })
      .update({ ...changes, version: db.raw('version + 1'), updated_at: new Date() });
    if (updated === 1) return;
  }
  const row = (await db(table).where(where).first('version')) as { version: number } | undefined;
  if (!row) throw new NotFoundError(labels.notFound);
  if (row.version !== expectedVersion || Object.keys(changes).length > 0) throw versionMismatch(labels.what);
}
