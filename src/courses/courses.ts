import type { Knex } from 'knex';
import { isMysql, type Database } from '../db/connection.js';
import {
  courseColumns,
  courseFromRow,
  coursesOfSite,
  emptySyllabusCounts,
  lecturersOfCourses,
  lectureTotals,
  sectionCounts,
  syllabusCounts,
  type CourseData,
  type CourseRow,
  type CourseStatus,
} from '../data/courses.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError, SlugTakenError, ValidationError } from '../shared/errors.js';
import { lockCourse } from './store.js';
import { type Queryable, countOf, isUniqueViolation, whereContains } from '../db/queries.js';
import { moneyColumns, priceProblems, type Money } from '../shared/money.js';
import { withTransaction } from '../db/transaction.js';

/**
 * The site's courses as operators manage them (admin API /courses; rules in docs/admin-courses.md): the catalogue
 * fields, the status, the ordered lecturer assignment, and the counts operators watch, computed set-based for a whole
 * page. Deleting is refused while members or orders depend on the course.
 */

export { COURSE_STATUSES, type CourseStatus } from '../data/courses.js';

export interface CourseLecturerRef {
  id: number;
  displayName: string;
}

/** A course as operators manage it: the catalogue fields with its lecturers and the counts operators watch. */
export interface Course extends CourseData {
  /** In the order course pages show them. */
  lecturers: CourseLecturerRef[];
  sectionCount: number;
  lectureCount: number;
  totalDurationSeconds: number;
  /** Every enrollment, expired ones included. */
  enrollmentCount: number;
}

/** Counts and lecturers of many courses: four queries whatever the number of courses (no query per row). */
async function decorate(db: Queryable, siteId: number, rows: readonly CourseRow[]): Promise<Course[]> {
  const courses = rows.map(courseFromRow);
  const ids = courses.map((course) => course.id);
  const enrollments = new Map<number, number>();
  const lecturers = new Map<number, CourseLecturerRef[]>(ids.map((id) => [id, []]));
  let counts = syllabusCounts(ids, new Map(), new Map());
  if (ids.length > 0) {
    const sections = await sectionCounts(db, ids);
    const lectures = await lectureTotals(db, ids);
    counts = syllabusCounts(ids, sections, lectures);
    const enrollmentRows: Array<{ course_id: number | string; total: unknown }> = await db('enrollments').whereIn('course_id', ids).where('site_id', siteId).groupBy('course_id').select('course_id').count({ total: '*' });
    const lecturerRows: Array<{ course_id: number | string; id: number | string; display_name: string }> = await lecturersOfCourses(db, siteId, ids)
      .orderBy([{ column: 'cl.course_id' }, { column: 'cl.position' }, { column: 'lp.id' }])
      .select('cl.course_id as course_id', 'lp.id as id', 'lp.display_name as display_name');
    for (const row of enrollmentRows) enrollments.set(Number(row.course_id), countOf(row.total));
    for (const row of lecturerRows) lecturers.get(Number(row.course_id))?.push({ id: Number(row.id), displayName: row.display_name });
  }
  return courses.map((course) => {
    const { sectionCount, lectureCount, totalDurationSeconds } = counts.get(course.id) ?? emptySyllabusCounts();
    return { ...course, lecturers: lecturers.get(course.id) ?? [], sectionCount, lectureCount, totalDurationSeconds, enrollmentCount: enrollments.get(course.id) ?? 0 };
  });
}

export async function findCourse(db: Queryable, siteId: number, courseId: number): Promise<Course | null> {
  const row = (await coursesOfSite(db, siteId).where('courses.id', courseId).first(courseColumns())) as CourseRow | undefined;
  if (!row) return null;
  const [course] = await decorate(db, siteId, [row]);
  return course ?? null;
}

export async function requireCourse(db: Queryable, siteId: number, courseId: number): Promise<Course> {
  const course = await findCourse(db, siteId, courseId);
  if (!course) throw new NotFoundError(`This site has no course ${courseId}.`);
  return course;
}

// --- Listing ----------------------------------------------------------------------------------------------------------

export interface CourseFilters {
  status?: CourseStatus | undefined;
  /** Case-insensitive substring of the title or the slug. */
  q?: string | undefined;
}

const COURSE_SORTS: SortColumns<'createdAt' | 'updatedAt' | 'title'> = {
  createdAt: { column: 'created_at', type: 'time' },
  updatedAt: { column: 'updated_at', type: 'time' },
  title: { column: 'title', type: 'string' },
};

/** One keyset page of the site's courses, newest first unless `sort` says otherwise. */
export async function listCourses(db: Database, siteId: number, filters: CourseFilters, query: ListQuery): Promise<{ courses: Course[]; nextCursor: string | null }> {
  const builder = coursesOfSite(db, siteId).select(courseColumns());
  if (filters.status !== undefined) builder.andWhere('status', filters.status);
  if (filters.q !== undefined) whereContains(builder, ['title', 'slug'], filters.q);
  const page = await listPage<CourseRow, keyof typeof COURSE_SORTS>(builder, query, { sorts: COURSE_SORTS, defaultSort: '-createdAt', filters: { status: filters.status, q: filters.q } });
  return { courses: await decorate(db, siteId, page.rows), nextCursor: page.nextCursor };
}

// --- Creating and changing ------------------------------------------------------------------------------------------

export type CourseFields = Omit<CourseData, 'id' | 'version' | 'createdAt' | 'updatedAt'>;

async function requireSlugFree(db: Queryable, siteId: number, slug: string, exceptCourseId?: number): Promise<void> {
  const clash = (await coursesOfSite(db, siteId).where('courses.slug', slug).first('courses.id')) as { id: number } | undefined;
  if (clash && Number(clash.id) !== exceptCourseId) throw new SlugTakenError('course', slug);
}

/** Creates a course (a draft unless `status` says otherwise); 409 `slug_taken` when the slug is in use at the site. */
export async function createCourse(db: Database, siteId: number, input: CourseFields): Promise<Course> {
  const problems = priceProblems(input.price, '/price');
  if (problems.length > 0) throw new ValidationError('The course is not valid.', problems);
  await requireSlugFree(db, siteId, input.slug);
  const now = new Date();
  let id: number;
  try {
    const [inserted] = await db('courses').insert({
      site_id: siteId,
      slug: input.slug,
      title: input.title,
      description: input.description,
      cover_image_url: input.coverImageUrl,
      status: input.status,
      ...moneyColumns('price', input.price),
      version: 1,
      created_at: now,
      updated_at: now,
    });
    id = Number(inserted);
  } catch (error) {
    // Two creates with one slug at once: the unique index decides.
    if (isUniqueViolation(error)) throw new SlugTakenError('course', input.slug);
    throw error;
  }
  return requireCourse(db, siteId, id);
}

export type CourseChanges = Partial<CourseFields>;

function samePrice(a: Money | null, b: Money | null): boolean {
  return a === b || (a !== null && b !== null && a.amount === b.amount && a.currency === b.currency);
}

/** A merge patch of a course at `expectedVersion` (412 otherwise); members equal to the stored values write nothing. */
export async function updateCourse(db: Database, siteId: number, courseId: number, changes: CourseChanges, expectedVersion: number): Promise<Course> {
  const current = await requireCourse(db, siteId, courseId);
  const problems = priceProblems(changes.price, '/price');
  if (problems.length > 0) throw new ValidationError('The course is not valid.', problems);
  const columns: Record<string, unknown> = {};
  if (changes.slug !== undefined && changes.slug !== current.slug) columns.slug = changes.slug;
  if (changes.title !== undefined && changes.title !== current.title) columns.title = changes.title;
  if (changes.description !== undefined && changes.description !== current.description) columns.description = changes.description;
  if (changes.coverImageUrl !== undefined && changes.coverImageUrl !== current.coverImageUrl) columns.cover_image_url = changes.coverImageUrl;
  if (changes.status !== undefined && changes.status !== current.status) columns.status = changes.status;
  if (changes.price !== undefined && !samePrice(changes.price, current.price)) Object.assign(columns, moneyColumns('price', changes.price));
  if (typeof columns.slug === 'string') await requireSlugFree(db, siteId, columns.slug, courseId);
  try {
    await updateVersionedRow(db, 'courses', { id: courseId, site_id: siteId }, expectedVersion, columns, { what: 'course', notFound: `This site has no course ${courseId}.` });
  } catch (error) {
    if (isUniqueViolation(error) && typeof columns.slug === 'string') throw new SlugTakenError('course', columns.slug);
    throw error;
  }
  return requireCourse(db, siteId, courseId);
}

/**
 * Replaces the course's lecturers with `lecturerIds` in that order. Every id must be a lecturer profile of this site
 * (400 at `/lecturerIds/<i>`). A changed list moves the course's version (its representation lists them).
 */
export async function setCourseLecturers(db: Database, siteId: number, courseId: number, lecturerIds: readonly number[]): Promise<Course> {
  await withTransaction(db, async (trx) => {
    await lockCourse(trx, siteId, courseId);
    const profiles = trx('lecturer_profiles').where({ site_id: siteId }).whereIn('id', [...lecturerIds]).select('id');
    // Shared locks on MySQL: a concurrent deleteLecturer cannot remove a profile this assignment is about to list.
    if (isMysql(trx)) profiles.forShare();
    const known: Array<{ id: number | string }> = lecturerIds.length === 0 ? [] : await profiles;
    const knownIds = new Set(known.map((row) => Number(row.id)));
    const problems = lecturerIds.flatMap((id, index) => (knownIds.has(id) ? [] : [{ pointer: `/lecturerIds/${index}`, message: `${id} is not a lecturer profile of this site` }]));
    if (problems.length > 0) throw new ValidationError('Some lecturers are not lecturer profiles of this site.', problems);
    const currentRows: Array<{ lecturer_profile_id: number | string }> = await trx('course_lecturers').where({ course_id: courseId }).orderBy([{ column: 'position' }, { column: 'lecturer_profile_id' }]).select('lecturer_profile_id');
    const currentIds = currentRows.map((row) => Number(row.lecturer_profile_id));
    if (currentIds.length === lecturerIds.length && currentIds.every((id, index) => id === lecturerIds[index])) return;
    await trx('course_lecturers').where({ course_id: courseId }).delete();
    if (lecturerIds.length > 0) await trx('course_lecturers').insert(lecturerIds.map((id, position) => ({ course_id: courseId, lecturer_profile_id: id, position })));
    await trx('courses').where({ id: courseId }).update({ version: trx.raw('version + 1'), updated_at: new Date() });
  });
  return requireCourse(db, siteId, courseId);
}

// --- Deleting ---------------------------------------------------------------------------------------------------------

async function countWhere(builder: Knex.QueryBuilder): Promise<number> {
  const rows = (await builder.count({ total: '*' })) as Array<{ total: unknown }>;
  return countOf(rows[0]?.total);
}

/**
 * Deletes a course with its own curriculum (sections, lectures), lecturer assignments and the comments on it and its
 * lectures. Refused while enrollments exist (409 `course_has_enrollments`) or payment line items refer to it
 * (409 `course_in_orders`): archive it instead.
 */
export async function deleteCourse(db: Database, siteId: number, courseId: number): Promise<void> {
  await withTransaction(db, async (trx) => {
    await lockCourse(trx, siteId, courseId);
    const enrollments = await countWhere(trx('enrollments').where({ course_id: courseId }));
    if (enrollments > 0) {
      throw new ConflictError(
        `The course has ${enrollments} enrollment${enrollments === 1 ? '' : 's'}; deleting it would take those members' access and progress. Archive the course instead (status "archived").`,
        'course_has_enrollments',
      );
    }
    const orderLines = await countWhere(trx('payment_line_items as li').join('payments as p', 'p.id', 'li.payment_id').where('p.site_id', siteId).where({ 'li.item_kind': 'course', 'li.item_id': courseId }));
    if (orderLines > 0) {
      throw new ConflictError(
        `${orderLines} order line${orderLines === 1 ? ' refers' : 's refer'} to the course; order history must stay resolvable. Archive the course instead (status "archived").`,
        'course_in_orders',
      );
    }
    const lectureIds = trx('lectures').where({ course_id: courseId }).select('id');
    await trx('comments').where({ site_id: siteId, target_kind: 'lecture' }).whereIn('target_id', lectureIds).delete();
    await trx('comments').where({ site_id: siteId, target_kind: 'course', target_id: courseId }).delete();
    // Sections, lectures, lecturer assignments (and any progress row left without an enrollment) go by ON DELETE CASCADE.
    await trx('courses').where({ id: courseId, site_id: siteId }).delete();
  });
}
