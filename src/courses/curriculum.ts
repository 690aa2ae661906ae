import type { Knex } from 'knex';
import { requireDate, toDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { versionMismatch } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../shared/errors.js';
import { coursesOfSite } from '../data/courses.js';
import { foldSections, sectionsWithLectures, SYLLABUS_ORDER as SECTIONS_THEN_LECTURES, syllabusColumns, type SyllabusRow } from '../data/syllabus.js';
import { lockCourse, placeAt, siblingsInOrder, writePositions } from './store.js';
import { type Queryable, countOf } from '../db/queries.js';
import { withTransaction } from '../db/transaction.js';

/**
 * The syllabus of a course as operators edit it (admin API /courses/{id}/curriculum, /sections, /lectures; rules in
 * docs/admin-courses.md). Positions are 0-based and dense within their parent (sections within the course, lectures
 * within their section); every change that inserts, moves or removes a row renumbers its siblings in the same
 * transaction, under the course-row lock, so two editors never leave a gap or a duplicate.
 */

export const LECTURE_KINDS = ['video', 'text', 'audio', 'quiz', 'file'] as const;
export type LectureKind = (typeof LECTURE_KINDS)[number];

export interface SectionRecord {
  id: number;
  courseId: number;
  title: string;
  /** 0-based within the course. */
  position: number;
  lectureCount: number;
  durationSeconds: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface LectureRecord {
  id: number;
  courseId: number;
  sectionId: number;
  title: string;
  /** 0-based within its section. */
  position: number;
  kind: LectureKind;
  durationSeconds: number;
  /** The operator's lock flag. */
  locked: boolean;
  /** Drip release time; null when none is scheduled. */
  unlockAt: Date | null;
  isPreview: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface CurriculumSection {
  id: number;
  title: string;
  position: number;
  durationSeconds: number;
  lectures: LectureRecord[];
}

export interface Curriculum {
  courseId: number;
  sectionCount: number;
  lectureCount: number;
  totalDurationSeconds: number;
  sections: CurriculumSection[];
}

interface SectionRow {
  id: number | string;
  course_id: number | string;
  title: string;
  position: number | string;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

interface LectureRow {
  id: number | string;
  course_id: number | string;
  section_id: number | string;
  title: string;
  position: number | string;
  kind: string;
  duration_seconds: number | string;
  locked: number | boolean;
  unlock_at: unknown;
  is_preview: number | boolean;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

const LECTURE_COLUMNS = ['id', 'course_id', 'section_id', 'title', 'position', 'kind', 'duration_seconds', 'locked', 'unlock_at', 'is_preview', 'version', 'created_at', 'updated_at'] as const;

function kindOf(value: string): LectureKind {
  return LECTURE_KINDS.find((kind) => kind === value) ?? 'video';
}

function lectureFromRow(row: LectureRow): LectureRecord {
  return {
    id: Number(row.id),
    courseId: Number(row.course_id),
    sectionId: Number(row.section_id),
    title: row.title,
    position: Number(row.position),
    kind: kindOf(row.kind),
    durationSeconds: Number(row.duration_seconds),
    locked: Boolean(row.locked),
    unlockAt: toDate(row.unlock_at),
    isPreview: Boolean(row.is_preview),
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

/** 404 unless the site has this course. */
async function requireCourseOfSite(db: Queryable, siteId: number, courseId: number): Promise<void> {
  const row = await coursesOfSite(db, siteId).where('courses.id', courseId).first('courses.id');
  if (!row) throw new NotFoundError(`This site has no course ${courseId}.`);
}

// --- The whole syllabus -----------------------------------------------------------------------------------------------

/** The syllabus tree of a course in one query: sections in order, each with its lectures in order (empty ones kept). */
export async function getCurriculum(db: Database, siteId: number, courseId: number): Promise<Curriculum> {
  await requireCourseOfSite(db, siteId, courseId);
  const rows: Array<Pick<SyllabusRow, 'section_id' | 'section_title' | 'section_position' | 'lecture_id'> & { [K in keyof LectureRow]: LectureRow[K] | null }> = await sectionsWithLectures(db)
    .where('s.course_id', courseId)
    .orderBy([...SECTIONS_THEN_LECTURES])
    // The lecture's section_id is the section's id (s.id), which the section columns already carry.
    .select(...syllabusColumns('section_id', 'section_title', 'section_position', 'lecture_id'), ...LECTURE_COLUMNS.filter((column) => column !== 'section_id').map((column) => `l.${column} as ${column}`));
  const sections = foldSections(
    rows,
    (row): CurriculumSection => ({ id: Number(row.section_id), title: row.section_title, position: Number(row.section_position), durationSeconds: 0, lectures: [] }),
    (section, row) => {
      const lecture = lectureFromRow(row as LectureRow);
      section.durationSeconds += lecture.durationSeconds;
      section.lectures.push(lecture);
    },
  );
  return {
    courseId,
    sectionCount: sections.length,
    lectureCount: sections.reduce((total, section) => total + section.lectures.length, 0),
    totalDurationSeconds: sections.reduce((total, section) => total + section.durationSeconds, 0),
    sections,
  };
}

// --- Sections ---------------------------------------------------------------------------------------------------------

/** Lecture counts and durations of many sections in one query. */
async function decorateSections(db: Queryable, rows: readonly SectionRow[]): Promise<SectionRecord[]> {
  const ids = rows.map((row) => Number(row.id));
  const totals = new Map<number, { count: number; duration: number }>();
  if (ids.length > 0) {
    const lectureRows: Array<{ section_id: number | string; total: unknown; duration: unknown }> = await db('lectures').whereIn('section_id', ids).groupBy('section_id').select('section_id').count({ total: '*' }).sum({ duration: 'duration_seconds' });
    for (const row of lectureRows) totals.set(Number(row.section_id), { count: countOf(row.total), duration: countOf(row.duration) });
  }
  return rows.map((row) => ({
    id: Number(row.id),
    courseId: Number(row.course_id),
    title: row.title,
    position: Number(row.position),
    lectureCount: totals.get(Number(row.id))?.count ?? 0,
    durationSeconds: totals.get(Number(row.id))?.duration ?? 0,
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  }));
}

async function sectionRow(db: Queryable, courseId: number, sectionId: number): Promise<SectionRow | undefined> {
  return (await db('course_sections').where({ id: sectionId, course_id: courseId }).first()) as SectionRow | undefined;
}

function sectionNotFound(courseId: number, sectionId: number): NotFoundError {
  return new NotFoundError(`Course ${courseId} has no section ${sectionId}.`);
}

export async function requireSection(db: Queryable, siteId: number, courseId: number, sectionId: number): Promise<SectionRecord> {
  await requireCourseOfSite(db, siteId, courseId);
  const row = await sectionRow(db, courseId, sectionId);
  if (!row) throw sectionNotFound(courseId, sectionId);
  const [section] = await decorateSections(db, [row]);
  if (!section) throw sectionNotFound(courseId, sectionId);
  return section;
}

/** True when `sectionId` is a section of the course (for the lecture list's filter). */
export async function sectionBelongsToCourse(db: Queryable, courseId: number, sectionId: number): Promise<boolean> {
  return (await sectionRow(db, courseId, sectionId)) !== undefined;
}

const SECTION_SORTS: SortColumns<'position' | 'createdAt' | 'updatedAt' | 'title'> = {
  position: { column: 'position', type: 'number' },
  createdAt: { column: 'created_at', type: 'time' },
  updatedAt: { column: 'updated_at', type: 'time' },
  title: { column: 'title', type: 'string' },
};

/** One keyset page of a course's sections, in syllabus order unless `sort` says otherwise. */
export async function listSections(db: Database, siteId: number, courseId: number, query: ListQuery): Promise<{ sections: SectionRecord[]; nextCursor: string | null }> {
  await requireCourseOfSite(db, siteId, courseId);
  const builder = db('course_sections').where({ course_id: courseId });
  const page = await listPage<SectionRow, keyof typeof SECTION_SORTS>(builder, query, { sorts: SECTION_SORTS, defaultSort: 'position', filters: { courseId } });
  return { sections: await decorateSections(db, page.rows), nextCursor: page.nextCursor };
}

function positionProblem(position: number | undefined, max: number, what: string): FieldProblem[] {
  if (position === undefined || position <= max) return [];
  return [{ pointer: '/position', message: `must be at most ${max} (${what})` }];
}

/** Adds a section last, or at `position` (the sections from there on move down by one). */
export async function createSection(db: Database, siteId: number, courseId: number, input: { title: string; position?: number | undefined }): Promise<SectionRecord> {
  const id = await withTransaction(db, async (trx) => {
    await lockCourse(trx, siteId, courseId);
    const siblings = await siblingsInOrder(trx, 'course_sections', { course_id: courseId });
    const problems = positionProblem(input.position, siblings.length, 'the number of sections');
    if (problems.length > 0) throw new ValidationError('The section cannot go there.', problems);
    const index = input.position ?? siblings.length;
    const now = new Date();
    const [inserted] = await trx('course_sections').insert({ course_id: courseId, title: input.title, position: index, version: 1, created_at: now, updated_at: now });
    const sectionId = Number(inserted);
    await writePositions(trx, 'course_sections', [...siblings, { id: sectionId, position: index }], placeAt(siblings.map((row) => row.id), sectionId, index), now, sectionId);
    return sectionId;
  });
  return requireSection(db, siteId, courseId, id);
}

/** Renames and/or moves a section at `expectedVersion`; the sections in between shift by one. */
export async function updateSection(db: Database, siteId: number, courseId: number, sectionId: number, changes: { title?: string | undefined; position?: number | undefined }, expectedVersion: number): Promise<SectionRecord> {
  await withTransaction(db, async (trx) => {
    await lockCourse(trx, siteId, courseId);
    const current = await sectionRow(trx, courseId, sectionId);
    if (!current) throw sectionNotFound(courseId, sectionId);
    const siblings = await siblingsInOrder(trx, 'course_sections', { course_id: courseId });
    const problems = positionProblem(changes.position, siblings.length - 1, 'the number of sections minus one');
    if (problems.length > 0) throw new ValidationError('The section cannot go there.', problems);
    if (Number(current.version) !== expectedVersion) throw versionMismatch('section');
    const ids = siblings.map((row) => row.id);
    const currentIndex = ids.indexOf(sectionId);
    const index = changes.position ?? currentIndex;
    const columns: Record<string, unknown> = {};
    if (changes.title !== undefined && changes.title !== current.title) columns.title = changes.title;
    if (Object.keys(columns).length === 0 && index === currentIndex) return;
    const now = new Date();
    const updated = await trx('course_sections')
      .where({ id: sectionId, version: expectedVersion })
      .update({ ...columns, version: trx.raw('version + 1'), updated_at: now });
    if (updated !== 1) throw versionMismatch('section');
    await writePositions(trx, 'course_sections', siblings, placeAt(ids, sectionId, index), now, sectionId);
  });
  return requireSection(db, siteId, courseId, sectionId);
}

/** Deletes an empty section (409 `section_not_empty` otherwise); the sections after it move up by one. */
export async function deleteSection(db: Database, siteId: number, courseId: number, sectionId: number): Promise<void> {
  await withTransaction(db, async (trx) => {
    await lockCourse(trx, siteId, courseId);
    const current = await sectionRow(trx, courseId, sectionId);
    if (!current) throw sectionNotFound(courseId, sectionId);
    const lectures = countOf(((await trx('lectures').where({ section_id: sectionId }).count({ total: '*' })) as Array<{ total: unknown }>)[0]?.total);
    if (lectures > 0) {
      throw new ConflictError(`The section still has ${lectures} lecture${lectures === 1 ? '' : 's'}. Move ${lectures === 1 ? 'it' : 'them'} to another section (updateLecture with sectionId) or delete ${lectures === 1 ? 'it' : 'them'} first.`, 'section_not_empty');
    }
    await trx('course_sections').where({ id: sectionId, course_id: courseId }).delete();
    const siblings = await siblingsInOrder(trx, 'course_sections', { course_id: courseId });
    await writePositions(
      trx,
      'course_sections',
      siblings,
      siblings.map((row) => row.id),
      new Date(),
    );
  });
}

// --- Lectures ---------------------------------------------------------------------------------------------------------

async function lectureRow(db: Queryable, courseId: number, lectureId: number): Promise<LectureRow | undefined> {
  return (await db('lectures').where({ id: lectureId, course_id: courseId }).first(...LECTURE_COLUMNS)) as LectureRow | undefined;
}

function lectureNotFound(courseId: number, lectureId: number): NotFoundError {
  return new NotFoundError(`Course ${courseId} has no lecture ${lectureId}.`);
}

export async function requireLecture(db: Queryable, siteId: number, courseId: number, lectureId: number): Promise<LectureRecord> {
  await requireCourseOfSite(db, siteId, courseId);
  const row = await lectureRow(db, courseId, lectureId);
  if (!row) throw lectureNotFound(courseId, lectureId);
  return lectureFromRow(row);
}

/** Syllabus order as one number: the section's position, then the lecture's (positions stay far below a million). */
const SYLLABUS_ORDER = 'syllabus_order';

const LECTURE_SORTS: SortColumns<'position' | 'createdAt' | 'updatedAt' | 'title'> = {
  position: { column: SYLLABUS_ORDER, type: 'number' },
  createdAt: { column: 'created_at', type: 'time' },
  updatedAt: { column: 'updated_at', type: 'time' },
  title: { column: 'title', type: 'string' },
};

/** One keyset page of a course's lectures (optionally of one section), in syllabus order unless `sort` says otherwise. */
export async function listLectures(db: Database, siteId: number, courseId: number, filters: { sectionId?: number | undefined }, query: ListQuery): Promise<{ lectures: LectureRecord[]; nextCursor: string | null }> {
  await requireCourseOfSite(db, siteId, courseId);
  const inner = db('lectures as l')
    .join('course_sections as s', 's.id', 'l.section_id')
    .where('l.course_id', courseId)
    .select(...LECTURE_COLUMNS.map((column) => `l.${column} as ${column}`), db.raw(`s.position * 1000000 + l.position as ${SYLLABUS_ORDER}`));
  if (filters.sectionId !== undefined) inner.andWhere('l.section_id', filters.sectionId);
  const builder: Knex.QueryBuilder = db.from(inner.as('x'));
  const page = await listPage<LectureRow, keyof typeof LECTURE_SORTS>(builder, query, { sorts: LECTURE_SORTS, defaultSort: 'position', filters: { courseId, sectionId: filters.sectionId } });
  return { lectures: page.rows.map(lectureFromRow), nextCursor: page.nextCursor };
}

export interface LectureFields {
  title: string;
  kind: LectureKind;
  durationSeconds: number;
  locked: boolean;
  unlockAt: Date | null;
  isPreview: boolean;
}

export interface NewLecture extends LectureFields {
  sectionId: number;
  position?: number | undefined;
}

function notASection(): ValidationError {
  return new ValidationError('The lecture cannot go there.', [{ pointer: '/sectionId', message: 'is not a section of this course' }]);
}

/** Adds a lecture to a section of the course, last or at `position` (the lectures from there on move down by one). */
export async function createLecture(db: Database, siteId: number, courseId: number, input: NewLecture): Promise<LectureRecord> {
  const id = await withTransaction(db, async (trx) => {
    await lockCourse(trx, siteId, courseId);
    if (!(await sectionRow(trx, courseId, input.sectionId))) throw notASection();
    const siblings = await siblingsInOrder(trx, 'lectures', { section_id: input.sectionId });
    const problems = positionProblem(input.position, siblings.length, 'the number of lectures in the section');
    if (problems.length > 0) throw new ValidationError('The lecture cannot go there.', problems);
    const index = input.position ?? siblings.length;
    const now = new Date();
    const [inserted] = await trx('lectures').insert({
      course_id: courseId,
      section_id: input.sectionId,
      title: input.title,
      position: index,
      kind: input.kind,
      duration_seconds: input.durationSeconds,
      locked: input.locked,
      unlock_at: input.unlockAt,
      is_preview: input.isPreview,
      version: 1,
      created_at: now,
      updated_at: now,
    });
    const lectureId = Number(inserted);
    await writePositions(trx, 'lectures', [...siblings, { id: lectureId, position: index }], placeAt(siblings.map((row) => row.id), lectureId, index), now, lectureId);
    return lectureId;
  });
  return requireLecture(db, siteId, courseId, id);
}

export type LectureChanges = Partial<LectureFields> & { sectionId?: number | undefined; position?: number | undefined };

function sameTime(a: Date | null, b: Date | null): boolean {
  return a === b || (a !== null && b !== null && a.getTime() === b.getTime());
}

/**
 * A merge patch of a lecture at `expectedVersion`. `sectionId` moves it to another section of the course (last, or at
 * `position`); `position` alone moves it within its section. Both sections are renumbered densely.
 */
export async function updateLecture(db: Database, siteId: number, courseId: number, lectureId: number, changes: LectureChanges, expectedVersion: number): Promise<LectureRecord> {
  await withTransaction(db, async (trx) => {
    await lockCourse(trx, siteId, courseId);
    const row = await lectureRow(trx, courseId, lectureId);
    if (!row) throw lectureNotFound(courseId, lectureId);
    const current = lectureFromRow(row);
    const targetSection = changes.sectionId ?? current.sectionId;
    const moving = targetSection !== current.sectionId;
    if (moving && !(await sectionRow(trx, courseId, targetSection))) throw notASection();
    const target = await siblingsInOrder(trx, 'lectures', { section_id: targetSection });
    const others = target.filter((sibling) => sibling.id !== lectureId).map((sibling) => sibling.id);
    const problems = positionProblem(changes.position, others.length, moving ? 'the number of lectures in the new section' : 'the number of lectures in the section minus one');
    if (problems.length > 0) throw new ValidationError('The lecture cannot go there.', problems);
    if (current.version !== expectedVersion) throw versionMismatch('lecture');

    const columns: Record<string, unknown> = {};
    if (changes.title !== undefined && changes.title !== current.title) columns.title = changes.title;
    if (changes.kind !== undefined && changes.kind !== current.kind) columns.kind = changes.kind;
    if (changes.durationSeconds !== undefined && changes.durationSeconds !== current.durationSeconds) columns.duration_seconds = changes.durationSeconds;
    if (changes.locked !== undefined && changes.locked !== current.locked) columns.locked = changes.locked;
    if (changes.unlockAt !== undefined && !sameTime(changes.unlockAt, current.unlockAt)) columns.unlock_at = changes.unlockAt;
    if (changes.isPreview !== undefined && changes.isPreview !== current.isPreview) columns.is_preview = changes.isPreview;
    if (moving) columns.section_id = targetSection;
    const currentIndex = target.findIndex((sibling) => sibling.id === lectureId);
    const index = changes.position ?? (moving ? others.length : currentIndex);
    const order = [...others.slice(0, index), lectureId, ...others.slice(index)];
    const positionChanges = !moving && index !== currentIndex;
    if (Object.keys(columns).length === 0 && !positionChanges) return;

    const now = new Date();
    const updated = await trx('lectures')
      .where({ id: lectureId, version: expectedVersion })
      .update({ ...columns, version: trx.raw('version + 1'), updated_at: now });
    if (updated !== 1) throw versionMismatch('lecture');
    await writePositions(trx, 'lectures', moving ? [...target, { id: lectureId, position: current.position }] : target, order, now, lectureId);
    if (moving) {
      const left = await siblingsInOrder(trx, 'lectures', { section_id: current.sectionId });
      await writePositions(
        trx,
        'lectures',
        left,
        left.map((sibling) => sibling.id),
        now,
      );
    }
  });
  return requireLecture(db, siteId, courseId, lectureId);
}

/**
 * Deletes a lecture (with the comments on it); the lectures after it move up by one. Refused with 409
 * `lecture_has_progress` while members have progress rows on it or an enrollment resumes at it: lock it instead.
 */
export async function deleteLecture(db: Database, siteId: number, courseId: number, lectureId: number): Promise<void> {
  await withTransaction(db, async (trx) => {
    await lockCourse(trx, siteId, courseId);
    const row = await lectureRow(trx, courseId, lectureId);
    if (!row) throw lectureNotFound(courseId, lectureId);
    const progress = countOf(((await trx('lecture_progress').where({ lecture_id: lectureId }).count({ total: '*' })) as Array<{ total: unknown }>)[0]?.total);
    const resuming = countOf(((await trx('enrollments').where({ last_watched_lecture_id: lectureId }).count({ total: '*' })) as Array<{ total: unknown }>)[0]?.total);
    if (progress > 0 || resuming > 0) {
      const parts = [progress > 0 ? `${progress} progress record${progress === 1 ? '' : 's'}` : null, resuming > 0 ? `${resuming} enrollment${resuming === 1 ? ' resumes' : 's resume'} at it` : null].filter((part) => part !== null);
      throw new ConflictError(`Members' progress would be lost (${parts.join('; ')}). Lock the lecture instead (locked: true).`, 'lecture_has_progress');
    }
    await trx('comments').where({ site_id: siteId, target_kind: 'lecture', target_id: lectureId }).delete();
    await trx('lectures').where({ id: lectureId, course_id: courseId }).delete();
    const left = await siblingsInOrder(trx, 'lectures', { section_id: Number(row.section_id) });
    await writePositions(
      trx,
      'lectures',
      left,
      left.map((sibling) => sibling.id),
      new Date(),
    );
  });
}
