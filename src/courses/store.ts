import type { Knex } from 'knex';
import { isMysql } from '../db/connection.js';
import { NotFoundError } from '../shared/errors.js';

/**
 * Small storage helpers shared by the course, curriculum and lecturer modules (docs/admin-courses.md): the one
 * course-row lock that serialises every curriculum change of a course, dense 0-based positions among siblings, the
 * case-insensitive substring search and the unique-index violation check, written once for SQLite and MySQL.
 */

/**
 * Reads the course row of this site inside `trx`, locking it on MySQL (`FOR UPDATE`) so that the curriculum
 * changes of one course run one after the other and positions stay dense. SQLite runs one transaction at a time.
 * NotFoundError when the site has no such course.
 */
export async function lockCourse(trx: Knex.Transaction, siteId: number, courseId: number): Promise<{ id: number; version: number }> {
  const query = trx('courses').where({ id: courseId, site_id: siteId }).first('id', 'version');
  if (isMysql(trx)) query.forUpdate();
  const row = (await query) as { id: number; version: number } | undefined;
  if (!row) throw new NotFoundError(`This site has no course ${courseId}.`);
  return { id: Number(row.id), version: Number(row.version) };
}

export interface Positioned {
  id: number;
  position: number;
}

/** The rows of a sibling set (`where` selects them) in their order: position, then id. */
export async function siblingsInOrder(trx: Knex.Transaction, table: string, where: Readonly<Record<string, number>>): Promise<Positioned[]> {
  const rows: Array<{ id: number | string; position: number | string }> = await trx(table).where(where).orderBy([{ column: 'position' }, { column: 'id' }]).select('id', 'position');
  return rows.map((row) => ({ id: Number(row.id), position: Number(row.position) }));
}

/**
 * Numbers `ids` 0..n-1 in the given order, writing only the rows whose position changes. A row that moves is a
 * changed representation, so its version and `updated_at` move too, except `quiet` (the row the caller just
 * wrote with its own compare-and-set).
 */
export async function writePositions(trx: Knex.Transaction, table: string, current: readonly Positioned[], ids: readonly number[], now: Date, quiet?: number): Promise<void> {
  const positions = new Map(current.map((row) => [row.id, row.position]));
  for (const [index, id] of ids.entries()) {
    if (positions.get(id) === index) continue;
    const columns = id === quiet ? { position: index } : { position: index, version: trx.raw('version + 1'), updated_at: now };
    await trx(table).where({ id }).update(columns);
  }
}

/** `ids` with `id` placed at `index` (after removing it from wherever it was). */
export function placeAt(ids: readonly number[], id: number, index: number): number[] {
  const others = ids.filter((candidate) => candidate !== id);
  return [...others.slice(0, index), id, ...others.slice(index)];
}

