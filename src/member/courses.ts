import { compiledSelect } from '../db/compiled-select.js';
import { toDate, type Database } from '../db/connection.js';
import { prefixedColumns } from '../data/columns.js';
import { COURSE_COLUMNS, courseFromRow, type CourseRow } from '../data/courses.js';
import { enrollmentColumns, enrollmentFromRow, type EnrollmentRow, type LastWatched } from '../data/enrollments.js';
import { foldSections, sectionsWithLectures, SYLLABUS_ORDER, syllabusColumns, withProgressOf, type SyllabusRow } from '../data/syllabus.js';
import type { MemberContext } from './context.js';
import { trimPage } from '../db/keyset.js';
import { DEFAULT_LIMITS, encodeCursor, pageFlags, pageWindow, sortValuesOf, windowed, type Page, type PageArgs, type SortKey } from './pagination.js';

/** The viewer's progress on one lecture (spec: Lecture `state`). No progress row means `unread`. */
export type LectureState = 'unread' | 'read' | 'completed';

/** A course the viewer is enrolled in, with the enrollment's access window and resume point (spec: Course node). */
export interface CourseRecord {
  /** The course id. */
  id: number;
  enrollmentId: number;
  slug: string;
  title: string;
  description: string | null;
  coverImageUrl: string | null;
  enrolledAt: Date;
  /** True when access never ends; then `expireDate` is null. */
  hasLifetimeAccess: boolean;
  /** When access ends; null exactly when `hasLifetimeAccess`. A past value means access has ended. */
  expireDate: Date | null;
  /** Where the viewer stopped watching; null before the first watch. */
  lastWatched: LastWatchedRecord | null;
}

export type LastWatchedRecord = LastWatched;

/**
 * One chapter of a course with its lectures in order (spec: "each section has `lectures`"). `L` is the lecture record:
 * the member API's lean `LectureRecord`, or `LectureDetailRecord` for callers that show playback details.
 */
export interface SectionRecord<L extends LectureRecord = LectureRecord> {
  id: number;
  courseId: number;
  title: string;
  /** 1-based position within the course. */
  position: number;
  lectures: L[];
}

/**
 * One lecture with the viewer's state and lock status (spec: Lecture): what the member API shows of it, and no more,
 * since a syllabus holds hundreds of them per request.
 */
export interface LectureRecord {
  id: number;
  title: string;
  /** 1-based position within its section. */
  position: number;
  /** Length in whole seconds; 0 for lectures without media (named as the member API's field, which reads it as is). */
  duration: number;
  /** Drip release time; null when none is scheduled. */
  unlockAt: Date | null;
  /** The operator's lock flag set, or `unlockAt` still in the future (relative to the request's clock). */
  isLocked: boolean;
  state: LectureState;
}

/** A lecture with the playback details the member's own tools and the operators' views show (MCP, admin). */
export interface LectureDetailRecord extends LectureRecord {
  courseId: number;
  sectionId: number;
  kind: string;
  /** `duration`, whole seconds. */
  durationSeconds: number;
  /** The operator's lock flag (a lecture is locked while it is set). */
  locked: boolean;
  /** Playback position from the progress row; 0 without one. */
  positionSeconds: number;
  completedAt: Date | null;
}

/** A course's syllabus and the progress over exactly its lectures, built together in one pass over the rows. */
export interface SyllabusRecord<L extends LectureRecord = LectureRecord> {
  sections: SectionRecord<L>[];
  progress: CourseProgressRecord;
}

/** Progress over every lecture of a course (spec: Course node `detailProgress`); the three counts partition the total. */
export interface CourseProgressRecord {
  totalLecturesCount: number;
  completedLecturesCount: number;
  readLecturesCount: number;
  unreadLecturesCount: number;
  /** completed / total, 0..1; 0 for a course without lectures. */
  completionRate: number;
  totalDurationSeconds: number;
  completedDurationSeconds: number;
}

/** An enrollment row with its course's columns beside it, prefixed (both tables have an id and timestamps). */
type EnrolledCourseRow = EnrollmentRow & Record<string, unknown>;

const COURSE_PREFIX = 'courses_';

const ENROLLED_COURSE_COLUMNS = [...enrollmentColumns(), ...prefixedColumns('courses', COURSE_COLUMNS, COURSE_PREFIX)];

/** enrolledCourses order (schema: "Ordered by enrollment, newest first"), ties broken by the enrollment id. */
const ENROLLED_COURSES_ORDER: SortKey = [
  { column: 'enrollments.enrolled_at', descending: true, time: true },
  { column: 'enrollments.id', descending: true },
];

/** Each course column with its prefixed name in the row, spelled once: a page of 20 courses reads 400 of them. */
const COURSE_COLUMN_ALIASES = COURSE_COLUMNS.map((column) => [column, `${COURSE_PREFIX}${column}`] as const);

/** The course's own row out of an enrolled-course row (the data layer's `unprefixed`, without a name built per column). */
function courseRowOf(row: EnrolledCourseRow): CourseRow {
  const own: Record<string, unknown> = {};
  for (const [column, alias] of COURSE_COLUMN_ALIASES) own[column] = row[alias];
  return own as unknown as CourseRow;
}

function enrolledCourseFromRow(row: EnrolledCourseRow): CourseRecord {
  const enrollment = enrollmentFromRow(row);
  const course = courseFromRow(courseRowOf(row));
  return {
    id: course.id,
    enrollmentId: enrollment.id,
    slug: course.slug,
    title: course.title,
    description: course.description,
    coverImageUrl: course.coverImageUrl,
    enrolledAt: enrollment.enrolledAt,
    hasLifetimeAccess: enrollment.hasLifetimeAccess,
    expireDate: enrollment.expiresAt,
    lastWatched: enrollment.lastWatched,
  };
}

/** The viewer's enrollments at this site joined with their courses: the base of every course lookup here. */
function enrolledCoursesQuery(ctx: MemberContext) {
  return enrolledCoursesAt(ctx.db, ctx.userId, ctx.site.id, ctx.site.id);
}

/** The same, from its values, each bound once (the site twice: the enrollment's and the course's). */
function enrolledCoursesAt(db: Database, userId: number, siteId: number, courseSiteId: number) {
  return db('enrollments').join('courses', 'courses.id', 'enrollments.course_id').where('enrollments.user_id', userId).where('enrollments.site_id', siteId).where('courses.site_id', courseSiteId);
}

/**
 * The first page (no cursor, newest first), the one nearly every request asks for: the statement `windowed` builds for
 * it, built once and afterwards only bound (`compiledSelect`), with the page size plus one as its limit.
 */
const firstEnrolledCoursesPage = compiledSelect<EnrolledCourseRow, [number, number, number, number]>((db, userId, siteId, courseSiteId, limit) =>
  windowed(enrolledCoursesAt(db, userId, siteId, courseSiteId).select(ENROLLED_COURSE_COLUMNS), ENROLLED_COURSES_ORDER, { direction: 'forward', size: limit - 1, after: null, before: null }),
);

/** A page of enrolled courses; `totalCount` is null when the page alone does not tell it (see `countEnrolledCourses`). */
export interface EnrolledCoursesPage extends Omit<Page<CourseRecord>, 'totalCount'> {
  totalCount: number | null;
}

/**
 * One page of the viewer's courses at this site, newest enrollment first (spec: viewer `enrolledCourses`), in ONE
 * query: the keyset window, fetched one row beyond the page size to know whether more exist. Expired enrollments stay
 * listed with their past `expireDate`. A page that is the whole list (no cursor, nothing beyond it) knows the total;
 * otherwise `totalCount` is null and `countEnrolledCourses` answers it when someone asks.
 */
export async function enrolledCoursesPage(ctx: MemberContext, args: PageArgs): Promise<EnrolledCoursesPage> {
  const window = pageWindow(args, DEFAULT_LIMITS, ENROLLED_COURSES_ORDER);
  const fetched =
    window.direction === 'forward' && window.after === null && window.before === null
      ? await firstEnrolledCoursesPage(ctx.db, ctx.userId, ctx.site.id, ctx.site.id, window.size + 1)
      : ((await windowed(enrolledCoursesQuery(ctx).select(ENROLLED_COURSE_COLUMNS), ENROLLED_COURSES_ORDER, window)) as EnrolledCourseRow[]);
  const { rows, hasMore } = trimPage(fetched, window.size, window.direction === 'backward');
  let cursors: string[] | undefined;
  return {
    nodes: rows.map(enrolledCourseFromRow),
    // Encoded on first read: a client that pages by cursor reads them, one that shows the list does not.
    get cursors() {
      cursors ??= rows.map((row) => encodeCursor(sortValuesOf(row, ENROLLED_COURSES_ORDER)));
      return cursors;
    },
    totalCount: window.after === null && window.before === null && !hasMore ? rows.length : null,
    ...pageFlags(window, hasMore),
  };
}

/** The count of the viewer's courses, built once and afterwards only bound (`compiledSelect`). */
const enrolledCoursesCount = compiledSelect<{ total: number | string }, [number, number, number]>((db, userId, siteId, courseSiteId) =>
  enrolledCoursesAt(db, userId, siteId, courseSiteId).count({ total: '*' }),
);

/** How many courses the viewer is enrolled in at this site (one count, once per request). */
export async function countEnrolledCourses(ctx: MemberContext): Promise<number> {
  const loader = ctx.loader<number, number>('enrolled-course-count', async (keys) => {
    const rows = await enrolledCoursesCount(ctx.db, ctx.userId, ctx.site.id, ctx.site.id);
    const total = Number(rows[0]?.total ?? 0);
    return keys.map(() => total);
  });
  return loader.load(0);
}

/**
 * The courses the viewer is enrolled in at this site, newest enrollment first, with the total: one query, plus a
 * count only when the page is not the whole list.
 */
export async function listEnrolledCourses(ctx: MemberContext, args: PageArgs): Promise<Page<CourseRecord>> {
  const page = await enrolledCoursesPage(ctx, args);
  // The page is completed in place: a copy would read its cursors, which are encoded only when someone reads them.
  const totalCount = page.totalCount ?? (await countEnrolledCourses(ctx));
  return Object.assign(page, { totalCount });
}

/**
 * The viewer's enrollments in the given courses, built once per number of courses and afterwards only bound
 * (`compiledSelect`); a batch larger than a page is built each time, so the compiled texts stay few.
 */
const enrolledCoursesById = compiledSelect<EnrolledCourseRow, [number, number, number, ...number[]]>(
  (db, userId, siteId, courseSiteId, ...courseIds) => enrolledCoursesAt(db, userId, siteId, courseSiteId).whereIn('courses.id', courseIds).select(ENROLLED_COURSE_COLUMNS),
  { maxValues: 3 + DEFAULT_LIMITS.maxSize },
);

/** One of the viewer's enrolled courses by course id, or null when the viewer is not enrolled in it here (batched). */
export async function enrolledCourse(ctx: MemberContext, courseId: number): Promise<CourseRecord | null> {
  const loader = ctx.loader<number, CourseRecord | null>('enrolled-course', async (ids) => {
    const rows = await enrolledCoursesById(ctx.db, ctx.userId, ctx.site.id, ctx.site.id, ...ids);
    const byCourse = new Map(rows.map((row) => [Number(row.course_id), enrolledCourseFromRow(row)]));
    return ids.map((id) => byCourse.get(id) ?? null);
  });
  return loader.load(courseId);
}

type SyllabusDetailRow = Pick<
  SyllabusRow,
  'section_id' | 'course_id' | 'section_title' | 'lecture_id' | 'lecture_title' | 'duration_seconds' | 'locked' | 'unlock_at' | 'state' | 'kind' | 'position_seconds' | 'completed_at'
>;

const SYLLABUS_COLUMNS = syllabusColumns('section_id', 'course_id', 'section_title', 'lecture_id', 'lecture_title', 'duration_seconds', 'locked', 'unlock_at', 'state');

const SYLLABUS_DETAIL_COLUMNS = [...SYLLABUS_COLUMNS, ...syllabusColumns('kind', 'position_seconds', 'completed_at')];

function lectureState(value: string | null): LectureState {
  return value === 'read' || value === 'completed' ? value : 'unread';
}

/** The syllabus statement of `count` courses: the member, the course ids, and for `checkEnrollment` the member and the site again. */
function syllabusQuery(db: Database, columns: readonly string[], checkEnrollment: boolean, values: readonly number[]) {
  const [userId = 0, ...rest] = values;
  const courseIds = checkEnrollment ? rest.slice(0, -2) : rest;
  const query = withProgressOf(sectionsWithLectures(db), userId)
    .whereIn('s.course_id', courseIds)
    .orderBy([{ column: 's.course_id' }, ...SYLLABUS_ORDER])
    .select(columns);
  // Only courses the viewer is enrolled in at this site, for callers that pass bare course ids.
  if (checkEnrollment) query.whereExists(db('enrollments as e').whereRaw('e.course_id = s.course_id').where('e.user_id', rest.at(-2) ?? 0).where('e.site_id', rest.at(-1) ?? 0).select(db.raw('1')));
  return query;
}

/** The rows of the syllabi of these courses for the viewer, course by course. */
type SyllabusStatement = (ctx: MemberContext, courseIds: readonly number[]) => Promise<SyllabusDetailRow[]>;

/**
 * A syllabus statement, built with knex once per number of courses and afterwards only bound (`compiledSelect`): its
 * text depends on nothing else. Counts beyond a page are built each time.
 */
function syllabusStatement(columns: readonly string[], checkEnrollment: boolean): SyllabusStatement {
  // The member, the course ids, and for checkEnrollment the member and the site again.
  const otherValues = checkEnrollment ? 3 : 1;
  const select = compiledSelect<SyllabusDetailRow, number[]>((db, ...values) => syllabusQuery(db, columns, checkEnrollment, values), { maxValues: otherValues + DEFAULT_LIMITS.maxSize });
  return (ctx, courseIds) => (checkEnrollment ? select(ctx.db, ctx.userId, ...courseIds, ctx.userId, ctx.site.id) : select(ctx.db, ctx.userId, ...courseIds));
}

const LEAN_SYLLABUS = syllabusStatement(SYLLABUS_COLUMNS, false);
const DETAIL_SYLLABUS = syllabusStatement(SYLLABUS_DETAIL_COLUMNS, true);

/** Builds one lecture record from its row; `position` is its 1-based place in the section. */
type LectureBuilder<L extends LectureRecord> = (row: SyllabusDetailRow, lecture: LectureRecord, courseId: number, sectionId: number) => L;

/**
 * The syllabi of many courses with the viewer's progress, in ONE query: sections, their lectures (left join, so empty
 * sections stay) and the viewer's progress rows (left join; no row = unread). One pass over the rows builds each
 * section and lecture record once and adds up each course's progress on the way.
 */
async function loadSyllabi<L extends LectureRecord>(ctx: MemberContext, courseIds: readonly number[], statement: SyllabusStatement, build: LectureBuilder<L>): Promise<SyllabusRecord<L>[]> {
  const rows = await statement(ctx, courseIds);
  // The rows come course by course (the first sort key).
  const rowsByCourse = new Map<number, SyllabusDetailRow[]>();
  for (const row of rows) {
    const courseId = Number(row.course_id);
    const courseRows = rowsByCourse.get(courseId);
    if (courseRows) courseRows.push(row);
    else rowsByCourse.set(courseId, [row]);
  }
  return courseIds.map((id) => syllabusOfRows(ctx.now.getTime(), id, rowsByCourse.get(id) ?? [], build));
}

/** One course's syllabus and progress from its rows, in one pass. */
function syllabusOfRows<L extends LectureRecord>(now: number, courseId: number, rows: readonly SyllabusDetailRow[], build: LectureBuilder<L>): SyllabusRecord<L> {
  const progress = emptyProgress();
  let completedDuration = 0;
  const sections = foldSections(
    rows,
    (row, position): SectionRecord<L> => ({ id: Number(row.section_id), courseId, title: row.section_title, position, lectures: [] }),
    (section, row) => {
      const unlockAt = toDate(row.unlock_at);
      const state = lectureState(row.state);
      const durationSeconds = Number(row.duration_seconds ?? 0);
      progress.totalLecturesCount += 1;
      progress.totalDurationSeconds += durationSeconds;
      if (state === 'completed') {
        progress.completedLecturesCount += 1;
        completedDuration += durationSeconds;
      } else if (state === 'read') {
        progress.readLecturesCount += 1;
      }
      const lecture: LectureRecord = {
        id: Number(row.lecture_id),
        title: row.lecture_title ?? '',
        position: section.lectures.length + 1,
        duration: durationSeconds,
        unlockAt,
        isLocked: Boolean(row.locked) || (unlockAt !== null && unlockAt.getTime() > now),
        state,
      };
      section.lectures.push(build(row, lecture, courseId, section.id));
    },
  );
  finishProgress(progress, completedDuration);
  return { sections, progress };
}

function emptyProgress(): CourseProgressRecord {
  return { totalLecturesCount: 0, completedLecturesCount: 0, readLecturesCount: 0, unreadLecturesCount: 0, completionRate: 0, totalDurationSeconds: 0, completedDurationSeconds: 0 };
}

function finishProgress(progress: CourseProgressRecord, completedDuration: number): void {
  progress.unreadLecturesCount = progress.totalLecturesCount - progress.completedLecturesCount - progress.readLecturesCount;
  progress.completionRate = progress.totalLecturesCount === 0 ? 0 : progress.completedLecturesCount / progress.totalLecturesCount;
  progress.completedDurationSeconds = completedDuration;
}

const leanLecture: LectureBuilder<LectureRecord> = (_row, lecture) => lecture;

// The lecture record is this row's own: completed in place (on Node 20 every property after a spread costs about a
// microsecond: seven per lecture).
const detailedLecture: LectureBuilder<LectureDetailRecord> = (row, lecture, courseId, sectionId) =>
  Object.assign(lecture, {
    courseId,
    sectionId,
    kind: row.kind ?? 'video',
    durationSeconds: lecture.duration,
    locked: Boolean(row.locked),
    positionSeconds: Number(row.position_seconds ?? 0),
    completedAt: toDate(row.completed_at),
  });

/**
 * The syllabus of one of the viewer's enrolled courses as the member API shows it (sections in order, each with its
 * lectures and the viewer's state) and the course's progress over the same lectures, batched: all the courses asked
 * for in one tick cost one query together. The course is a record of the viewer's enrollments (`enrolledCoursesPage`,
 * `enrolledCourse`), so the enrollment is not checked again.
 */
export function syllabusOf(ctx: MemberContext, course: CourseRecord): Promise<SyllabusRecord> {
  return ctx.loader<number, SyllabusRecord>('course-syllabus', (ids) => loadSyllabi(ctx, ids, LEAN_SYLLABUS, leanLecture)).load(course.id);
}

/**
 * The syllabus of a course with each lecture's playback details (kind, position, completion time), batched like
 * `syllabusOf`. Callers pass ids of the viewer's enrolled courses.
 */
export async function sectionsOfCourse(ctx: MemberContext, courseId: number): Promise<SectionRecord<LectureDetailRecord>[]> {
  return (await detailedSyllabusOf(ctx, courseId)).sections;
}

/** The syllabus with playback details and its progress; an id the viewer is not enrolled in here has none. */
function detailedSyllabusOf(ctx: MemberContext, courseId: number): Promise<SyllabusRecord<LectureDetailRecord>> {
  return ctx.loader<number, SyllabusRecord<LectureDetailRecord>>('course-syllabus-detail', (ids) => loadSyllabi(ctx, ids, DETAIL_SYLLABUS, detailedLecture)).load(courseId);
}

/** The lectures of a course in syllabus order (section by section), with the viewer's state and playback details. */
export async function lecturesOfCourse(ctx: MemberContext, courseId: number): Promise<LectureDetailRecord[]> {
  return (await sectionsOfCourse(ctx, courseId)).flatMap((section) => section.lectures);
}

/** The lectures of one section of a course, in order (same batch as `sectionsOfCourse`); empty for an unknown section. */
export async function lecturesOfSection(ctx: MemberContext, courseId: number, sectionId: number): Promise<LectureDetailRecord[]> {
  return (await sectionsOfCourse(ctx, courseId)).find((section) => section.id === sectionId)?.lectures ?? [];
}

/** Progress numbers of a list of lectures: the counts partition the list. */
export function progressOf(lectures: readonly LectureDetailRecord[]): CourseProgressRecord {
  let completed = 0;
  let read = 0;
  let totalDuration = 0;
  let completedDuration = 0;
  for (const lecture of lectures) {
    totalDuration += lecture.durationSeconds;
    if (lecture.state === 'completed') {
      completed += 1;
      completedDuration += lecture.durationSeconds;
    } else if (lecture.state === 'read') {
      read += 1;
    }
  }
  return progressRecord({ total: lectures.length, completed, read, totalDuration, completedDuration });
}

/** A progress record from its counts: the unread count and the completion rate follow from them. */
export function progressRecord(counts: { total: number; completed: number; read: number; totalDuration: number; completedDuration: number }): CourseProgressRecord {
  const { total, completed, read } = counts;
  return {
    totalLecturesCount: total,
    completedLecturesCount: completed,
    readLecturesCount: read,
    unreadLecturesCount: total - completed - read,
    completionRate: total === 0 ? 0 : completed / total,
    totalDurationSeconds: counts.totalDuration,
    completedDurationSeconds: counts.completedDuration,
  };
}

/**
 * `detailProgress` of a course, added up with its syllabus from the same lecture rows (no extra query): of one of the
 * viewer's course records, or of a course id (then only when the viewer is enrolled in it here).
 */
export function courseProgress(ctx: MemberContext, course: CourseRecord | number): Promise<CourseProgressRecord> {
  return (typeof course === 'number' ? detailedSyllabusOf(ctx, course) : syllabusOf(ctx, course)).then(progressOfSyllabus);
}

const progressOfSyllabus = (syllabus: SyllabusRecord): CourseProgressRecord => syllabus.progress;

/** The resume point of an enrolled course (spec: `lastWatchedLecture`), from its enrollment; no query. */
export function lastWatched(course: CourseRecord): LastWatchedRecord | null {
  return course.lastWatched;
}
