import { grantRole, isSiteMember } from '../accounts/roles.js';
import { isMysql, requireDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { type Queryable, isUniqueViolation, whereContains } from '../db/queries.js';
import { withTransaction } from '../db/transaction.js';

/**
 * Lecturer profiles as operators manage them (admin API /lecturers; rules in docs/admin-courses.md): one per person
 * and site, for a person who already has a role at the site; creating one grants the `lecturer` role. A profile
 * assigned to courses cannot be deleted.
 */

export interface LecturerCourseRef {
  id: number;
  title: string;
}

export interface LecturerRecord {
  id: number;
  userId: number;
  displayName: string;
  bio: string | null;
  avatarUrl: string | null;
  /** The courses the lecturer is assigned to, by title. */
  courses: LecturerCourseRef[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface LecturerRow {
  id: number | string;
  user_id: number | string;
  display_name: string;
  bio: string | null;
  avatar_url: string | null;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

/** The courses of many lecturers in one query. */
async function coursesOf(db: Queryable, siteId: number, lecturerIds: readonly number[]): Promise<Map<number, LecturerCourseRef[]>> {
  const courses = new Map<number, LecturerCourseRef[]>(lecturerIds.map((id) => [id, []]));
  if (lecturerIds.length === 0) return courses;
  const rows: Array<{ lecturer_id: number | string; id: number | string; title: string }> = await db('course_lecturers as cl')
    .join('courses as c', 'c.id', 'cl.course_id')
    .whereIn('cl.lecturer_profile_id', [...lecturerIds])
    .where('c.site_id', siteId)
    .orderBy([{ column: 'cl.lecturer_profile_id' }, { column: 'c.title' }, { column: 'c.id' }])
    .select('cl.lecturer_profile_id as lecturer_id', 'c.id as id', 'c.title as title');
  for (const row of rows) courses.get(Number(row.lecturer_id))?.push({ id: Number(row.id), title: row.title });
  return courses;
}

async function decorate(db: Queryable, siteId: number, rows: readonly LecturerRow[]): Promise<LecturerRecord[]> {
  const courses = await coursesOf(
    db,
    siteId,
    rows.map((row) => Number(row.id)),
  );
  return rows.map((row) => ({
    id: Number(row.id),
    userId: Number(row.user_id),
    displayName: row.display_name,
    bio: row.bio,
    avatarUrl: row.avatar_url || null,
    courses: courses.get(Number(row.id)) ?? [],
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  }));
}

export async function requireLecturer(db: Queryable, siteId: number, lecturerId: number): Promise<LecturerRecord> {
  const row = (await db('lecturer_profiles').where({ id: lecturerId, site_id: siteId }).first()) as LecturerRow | undefined;
  const [lecturer] = row ? await decorate(db, siteId, [row]) : [];
  if (!lecturer) throw new NotFoundError(`This site has no lecturer profile ${lecturerId}.`);
  return lecturer;
}

const LECTURER_SORTS: SortColumns<'createdAt' | 'displayName'> = {
  createdAt: { column: 'created_at', type: 'time' },
  displayName: { column: 'display_name', type: 'string' },
};

/** One keyset page of the site's lecturer profiles, newest first unless `sort` says otherwise. */
export async function listLecturers(db: Database, siteId: number, filters: { q?: string | undefined }, query: ListQuery): Promise<{ lecturers: LecturerRecord[]; nextCursor: string | null }> {
  const builder = db('lecturer_profiles').where({ site_id: siteId });
  if (filters.q !== undefined) whereContains(builder, ['display_name'], filters.q);
  const page = await listPage<LecturerRow, keyof typeof LECTURER_SORTS>(builder, query, { sorts: LECTURER_SORTS, defaultSort: '-createdAt', filters: { q: filters.q } });
  return { lecturers: await decorate(db, siteId, page.rows), nextCursor: page.nextCursor };
}

export interface NewLecturer {
  userId: number;
  displayName: string;
  bio: string | null;
  avatarUrl: string | null;
}

function lecturerExists(userId: number): ConflictError {
  return new ConflictError(`User ${userId} already has a lecturer profile at this site; change that one instead.`, 'lecturer_exists');
}

/**
 * Creates the profile of a person with a role at this site (400 at `/userId` otherwise) and grants them the
 * `lecturer` role if they lack it, in one transaction. 409 `lecturer_exists` when they have a profile here.
 */
export async function createLecturer(db: Database, siteId: number, input: NewLecturer): Promise<LecturerRecord> {
  if (!(await isSiteMember(db, siteId, input.userId))) throw new ValidationError('A lecturer profile is for a person with a role at this site.', [{ pointer: '/userId', message: 'is not a user with a role at this site' }]);
  const existing = await db('lecturer_profiles').where({ site_id: siteId, user_id: input.userId }).first('id');
  if (existing) throw lecturerExists(input.userId);
  let id: number;
  try {
    id = await withTransaction(db, async (trx) => {
      const now = new Date();
      const [inserted] = await trx('lecturer_profiles').insert({
        site_id: siteId,
        user_id: input.userId,
        display_name: input.displayName,
        bio: input.bio,
        avatar_url: input.avatarUrl,
        version: 1,
        created_at: now,
        updated_at: now,
      });
      await grantRole(trx, siteId, input.userId, 'lecturer');
      return Number(inserted);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw lecturerExists(input.userId);
    throw error;
  }
  return requireLecturer(db, siteId, id);
}

export interface LecturerChanges {
  displayName?: string | undefined;
  bio?: string | null | undefined;
  avatarUrl?: string | null | undefined;
}

/** A merge patch of a profile at `expectedVersion`; members equal to the stored values write nothing. */
export async function updateLecturer(db: Database, siteId: number, lecturerId: number, changes: LecturerChanges, expectedVersion: number): Promise<LecturerRecord> {
  const current = await requireLecturer(db, siteId, lecturerId);
  const columns: Record<string, unknown> = {};
  if (changes.displayName !== undefined && changes.displayName !== current.displayName) columns.display_name = changes.displayName;
  if (changes.bio !== undefined && changes.bio !== current.bio) columns.bio = changes.bio;
  if (changes.avatarUrl !== undefined && changes.avatarUrl !== current.avatarUrl) columns.avatar_url = changes.avatarUrl;
  await updateVersionedRow(db, 'lecturer_profiles', { id: lecturerId, site_id: siteId }, expectedVersion, columns, { what: 'lecturer profile', notFound: `This site has no lecturer profile ${lecturerId}.` });
  return requireLecturer(db, siteId, lecturerId);
}

/** Deletes a profile that no course lists (409 `lecturer_assigned` naming the courses otherwise). Roles stay. */
export async function deleteLecturer(db: Database, siteId: number, lecturerId: number): Promise<void> {
  await withTransaction(db, async (trx) => {
    // On MySQL, a concurrent setCourseLecturers (which reads the profiles FOR SHARE) waits for this delete, or this for it.
    if (isMysql(trx)) await trx('lecturer_profiles').where({ id: lecturerId, site_id: siteId }).forUpdate().first('id');
    const lecturer = await requireLecturer(trx, siteId, lecturerId);
    if (lecturer.courses.length > 0) {
      const titles = lecturer.courses.map((course) => `"${course.title}"`).join(', ');
      throw new ConflictError(`The lecturer is assigned to ${lecturer.courses.length === 1 ? 'the course' : 'the courses'} ${titles}. Take them off ${lecturer.courses.length === 1 ? 'that course' : 'those courses'} (setCourseLecturers) first.`, 'lecturer_assigned');
    }
    await trx('lecturer_profiles').where({ id: lecturerId, site_id: siteId }).delete();
  });
}
