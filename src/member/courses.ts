import { requireDate, toDate } from '../db/connection.js';
import type { MemberContext } from './context.js';
import { DEFAULT_LIMITS, fetchPage, pageWindow, type Page, type PageArgs, type SortKey } from './pagination.js';

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

export interface LastWatchedRecord {
  lectureId: number;
  positionSeconds: number;
  watchedAt: Date | null;
}

/** One chapter of a course with its lectures in order (spec: "each section has `lectures`"). */
export interface SectionRecord {
  id: number;
  courseId: number;
  title: string;
  /** 1-based position within the course. */
  position: number;
  lectures: LectureRecord[];
}

/** One lecture with the viewer's state and lock status (spec: Lecture). */
export interface LectureRecord {
  id: number;
  courseId: number;
  sectionId: number;
  title: string;
  /** 1-based position within its section. */
  position: number;
  kind: string;
  /** Whole seconds; 0 for lectures without media. */
  durationSeconds: number;
  /** The operator's lock flag (a lecture is locked while it is set). */
  locked: boolean;
  /** Drip release time; null when none is scheduled. */
  unlockAt: Date | null;
  /** Locked flag set, or `unlockAt` still in the future (relative to the request's clock). */
  isLocked: boolean;
  state: LectureState;
  /** Playback position from the progress row; 0 without one. */
  positionSeconds: number;
  completedAt: Date | null;
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

interface EnrolledCourseRow {
  /** The enrollment id (the list's tie-breaker). */
  id: number;
  enrolled_at: unknown;
  expires_at: unknown;
  has_lifetime_access: number | boolean;
  last_watched_lecture_id: number | null;
  last_watched_position_seconds: number | null;
  last_watched_at: unknown;
  course_id: number;
  slug: string;
  title: string;
  description: string | null;
  cover_image_url: string | null;
}

const ENROLLED_COURSE_COLUMNS = [
  'enrollments.id as id',
  'enrollments.enrolled_at as enrolled_at',
  'enrollments.expires_at as expires_at',
  'enrollments.has_lifetime_access as has_lifetime_access',
  'enrollments.last_watched_lecture_id as last_watched_lecture_id',
  'enrollments.last_watched_position_seconds as last_watched_position_seconds',
  'enrollments.last_watched_at as last_watched_at',
  'courses.id as course_id',
  'courses.slug as slug',
  'courses.title as title',
  'courses.description as description',
  'courses.cover_image_url as cover_image_url',
];

/** enrolledCourses order (schema: "Ordered by enrollment, newest first"), ties broken by the enrollment id. */
const ENROLLED_COURSES_ORDER: SortKey = [
  { column: 'enrollments.enrolled_at', descending: true, time: true },
  { column: 'enrollments.id', descending: true },
];

function courseFromRow(row: EnrolledCourseRow): CourseRecord {
  const expiresAt = toDate(row.expires_at);
  // An enrollment with no end date is lifetime access, whatever the flag says, so `expireDate` is null exactly then.
  const hasLifetimeAccess = Boolean(row.has_lifetime_access) || expiresAt === null;
  const lectureId = row.last_watched_lecture_id === null ? null : Number(row.last_watched_lecture_id);
  return {
    id: Number(row.course_id),
    enrollmentId: Number(row.id),
    slug: row.slug,
    title: row.title,
    description: row.description,
    coverImageUrl: row.cover_image_url || null,
    enrolledAt: requireDate(row.enrolled_at),
    hasLifetimeAccess,
    expireDate: hasLifetimeAccess ? null : expiresAt,
    lastWatched: lectureId === null ? null : { lectureId, positionSeconds: Number(row.last_watched_position_seconds ?? 0), watchedAt: toDate(row.last_watched_at) },
  };
}

/** The viewer's enrollments at this site joined with their courses: the base of every course lookup here. */
function enrolledCoursesQuery(ctx: MemberContext) {
  return ctx
    .db('enrollments')
    .join('courses', 'courses.id', 'enrollments.course_id')
    .where('enrollments.user_id', ctx.userId)
    .where('enrollments.site_id', ctx.site.id)
    .where('courses.site_id', ctx.site.id);
}

/**
 * The courses the viewer is enrolled in at this site, newest enrollment first (spec: viewer `enrolledCourses`).
 * Expired enrollments stay listed with their past `expireDate`. Two queries (page + count) whatever the page size.
 */
export async function listEnrolledCourses(ctx: MemberContext, args: PageArgs): Promise<Page<CourseRecord>> {
  const window = pageWindow(args, DEFAULT_LIMITS, ENROLLED_COURSES_ORDER);
  const page = await fetchPage<EnrolledCourseRow & Record<string, unknown>>(() => enrolledCoursesQuery(ctx).select(ENROLLED_COURSE_COLUMNS), ENROLLED_COURSES_ORDER, window);
  return { ...page, nodes: page.nodes.map(courseFromRow) };
}

/** One of the viewer's enrolled courses by course id, or null when the viewer is not enrolled in it here (batched). */
export async function enrolledCourse(ctx: MemberContext, courseId: number): Promise<CourseRecord | null> {
  const loader = ctx.loader<number, CourseRecord | null>('enrolled-course', async (ids) => {
    const rows: EnrolledCourseRow[] = await enrolledCoursesQuery(ctx).whereIn('courses.id', [...ids]).select(ENROLLED_COURSE_COLUMNS);
    const byCourse = new Map(rows.map((row) => [Number(row.course_id), courseFromRow(row)]));
    return ids.map((id) => byCourse.get(id) ?? null);
  });
  return loader.load(courseId);
}

interface SyllabusRow {
  section_id: number;
  course_id: number;
  section_title: string;
  lecture_id: number | null;
  lecture_title: string | null;
  kind: string | null;
  duration_seconds: number | null;
  locked: number | boolean | null;
  unlock_at: unknown;
  state: string | null;
  position_seconds: number | null;
  completed_at: unknown;
}

function lectureState(value: string | null): LectureState {
  return value === 'read' || value === 'completed' ? value : 'unread';
}

/**
 * The syllabi of many courses with the viewer's progress, in ONE query: sections, their lectures (left join, so empty
 * sections stay) and the viewer's progress rows (left join; no row = unread).
 */
async function loadSyllabi(ctx: MemberContext, courseIds: readonly number[]): Promise<SectionRecord[][]> {
  const rows: SyllabusRow[] = await ctx
    .db('course_sections as s')
    .leftJoin('lectures as l', 'l.section_id', 's.id')
    .leftJoin('lecture_progress as p', (join) => {
      join.on('p.lecture_id', '=', 'l.id').andOnVal('p.user_id', '=', ctx.userId);
    })
    .whereIn('s.course_id', [...courseIds])
    // Only courses the viewer is enrolled in at this site, whoever calls this.
    .whereExists(ctx.db('enrollments as e').whereRaw('e.course_id = s.course_id').where('e.user_id', ctx.userId).where('e.site_id', ctx.site.id).select(ctx.db.raw('1')))
    .orderBy([{ column: 's.course_id' }, { column: 's.position' }, { column: 's.id' }, { column: 'l.position' }, { column: 'l.id' }])
    .select(
      's.id as section_id',
      's.course_id as course_id',
      's.title as section_title',
      'l.id as lecture_id',
      'l.title as lecture_title',
      'l.kind as kind',
      'l.duration_seconds as duration_seconds',
      'l.locked as locked',
      'l.unlock_at as unlock_at',
      'p.state as state',
      'p.position_seconds as position_seconds',
      'p.completed_at as completed_at',
    );
  const byCourse = new Map<number, SectionRecord[]>();
  let section: SectionRecord | undefined;
  for (const row of rows) {
    const courseId = Number(row.course_id);
    const sectionId = Number(row.section_id);
    if (!section || section.id !== sectionId) {
      const sections = byCourse.get(courseId) ?? [];
      byCourse.set(courseId, sections);
      section = { id: sectionId, courseId, title: row.section_title, position: sections.length + 1, lectures: [] };
      sections.push(section);
    }
    if (row.lecture_id === null) continue;
    const unlockAt = toDate(row.unlock_at);
    const locked = Boolean(row.locked);
    section.lectures.push({
      id: Number(row.lecture_id),
      courseId,
      sectionId,
      title: row.lecture_title ?? '',
      position: section.lectures.length + 1,
      kind: row.kind ?? 'video',
      durationSeconds: Number(row.duration_seconds ?? 0),
      locked,
      unlockAt,
      isLocked: locked || (unlockAt !== null && unlockAt.getTime() > ctx.now.getTime()),
      state: lectureState(row.state),
      positionSeconds: Number(row.position_seconds ?? 0),
      completedAt: toDate(row.completed_at),
    });
  }
  return courseIds.map((id) => byCourse.get(id) ?? []);
}

/**
 * The syllabus of a course (sections in order, each with its lectures and the viewer's state), batched: all the
 * courses asked for in one tick cost one query together. Callers pass ids of the viewer's enrolled courses.
 */
export async function sectionsOfCourse(ctx: MemberContext, courseId: number): Promise<SectionRecord[]> {
  return ctx.loader<number, SectionRecord[]>('course-syllabus', (ids) => loadSyllabi(ctx, ids)).load(courseId);
}

/** The lectures of a course in syllabus order (section by section), with the viewer's state; same batch as sections. */
export async function lecturesOfCourse(ctx: MemberContext, courseId: number): Promise<LectureRecord[]> {
  return (await sectionsOfCourse(ctx, courseId)).flatMap((section) => section.lectures);
}

/** The lectures of one section of a course, in order (same batch as `sectionsOfCourse`); empty for an unknown section. */
export async function lecturesOfSection(ctx: MemberContext, courseId: number, sectionId: number): Promise<LectureRecord[]> {
  return (await sectionsOfCourse(ctx, courseId)).find((section) => section.id === sectionId)?.lectures ?? [];
}

/** Progress numbers of a list of lectures: the counts partition the list. */
export function progressOf(lectures: readonly LectureRecord[]): CourseProgressRecord {
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
  const total = lectures.length;
  return {
    totalLecturesCount: total,
    completedLecturesCount: completed,
    readLecturesCount: read,
    unreadLecturesCount: total - completed - read,
    completionRate: total === 0 ? 0 : completed / total,
    totalDurationSeconds: totalDuration,
    completedDurationSeconds: completedDuration,
  };
}

/** `detailProgress` of a course, computed from the same lecture set and states as its syllabus (no extra query). */
export async function courseProgress(ctx: MemberContext, courseId: number): Promise<CourseProgressRecord> {
  return progressOf(await lecturesOfCourse(ctx, courseId));
}

/** The resume point of an enrolled course (spec: `lastWatchedLecture`), from its enrollment; no query. */
export function lastWatched(course: CourseRecord): LastWatchedRecord | null {
  return course.lastWatched;
}
