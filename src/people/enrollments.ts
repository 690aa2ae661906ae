import type { Database } from '../db/connection.js';
import { coursesOfSite } from '../data/courses.js';
import { enrollmentColumns, enrollmentFromRow, enrollmentsOfSite, type EnrollmentData, type EnrollmentRow } from '../data/enrollments.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow } from '../db/versioned-rows.js';
import { MemberContext } from '../member/context.js';
import { progressOf, sectionsOfCourse, type LectureState } from '../member/courses.js';
import type { Site } from '../sites/sites.js';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../shared/errors.js';
import { requireMemberReference } from './references.js';

/**
 * Enrollments of a site as operators see them (docs/admin-people.md, Students): a member's access to a course,
 * lifetime or until `expires_at`, with the progress the member API shows (the same functions of src/member/courses.ts
 * compute it, so both APIs give the same numbers). Deleting an enrollment keeps the member's lecture_progress rows:
 * they are keyed by (user, lecture), so enrolling the member again brings their progress back.
 */

export type { EnrollmentSource } from '../data/enrollments.js';
export type EnrollmentAccess = 'active' | 'expired';

/** An enrollment as operators see it: whether its access is still on at the request's instant. */
export interface Enrollment extends EnrollmentData {
  access: EnrollmentAccess;
}

export interface ProgressSummary {
  totalLectures: number;
  completedLectures: number;
  readLectures: number;
  /** completed / total as a whole percentage, rounded down; 0 without lectures. */
  percent: number;
}

export interface LectureProgress {
  lectureId: number;
  title: string;
  position: number;
  sectionId: number;
  sectionTitle: string;
  sectionPosition: number;
  state: LectureState;
  positionSeconds: number;
  completedAt: Date | null;
}

function enrollmentAt(row: EnrollmentRow, now: Date): Enrollment {
  const enrollment = enrollmentFromRow(row);
  const active = enrollment.hasLifetimeAccess || (enrollment.expiresAt !== null && enrollment.expiresAt.getTime() > now.getTime());
  return { ...enrollment, access: active ? 'active' : 'expired' };
}

const ENROLLMENT_SORTS: SortColumns<'enrolledAt' | 'updatedAt'> = {
  enrolledAt: { column: 'enrolled_at', type: 'time' },
  updatedAt: { column: 'updated_at', type: 'time' },
};

export interface EnrollmentFilters {
  courseId?: number | undefined;
  userId?: number | undefined;
  access?: EnrollmentAccess | undefined;
}

export async function listEnrollments(db: Database, siteId: number, filters: EnrollmentFilters, query: ListQuery, now: Date = new Date()): Promise<{ enrollments: Enrollment[]; nextCursor: string | null }> {
  const builder = enrollmentsOfSite(db, siteId).select(enrollmentColumns());
  if (filters.courseId !== undefined) builder.andWhere('course_id', filters.courseId);
  if (filters.userId !== undefined) builder.andWhere('user_id', filters.userId);
  if (filters.access === 'active') {
    builder.andWhere((active) => {
      active.where('has_lifetime_access', true).orWhereNull('expires_at').orWhere('expires_at', '>', now);
    });
  } else if (filters.access === 'expired') {
    builder.andWhere('has_lifetime_access', false).whereNotNull('expires_at').andWhere('expires_at', '<=', now);
  }
  const page = await listPage<EnrollmentRow, keyof typeof ENROLLMENT_SORTS>(builder, query, { sorts: ENROLLMENT_SORTS, defaultSort: '-enrolledAt', filters: { ...filters } });
  return { enrollments: page.rows.map((row) => enrollmentAt(row, now)), nextCursor: page.nextCursor };
}

export async function requireEnrollment(db: Database, siteId: number, enrollmentId: number, now: Date = new Date()): Promise<Enrollment> {
  const row = (await enrollmentsOfSite(db, siteId).where('enrollments.id', enrollmentId).first(enrollmentColumns())) as EnrollmentRow | undefined;
  if (!row) throw new NotFoundError(`This site has no enrollment ${enrollmentId}.`);
  return enrollmentAt(row, now);
}

/**
 * The member domain's view of the enrolled member (src/member/courses.ts): the syllabus with their states, exactly
 * as the member API reads it. The course functions do not depend on the API variant.
 */
function memberView(db: Database, site: Site, enrollment: Enrollment, now: Date): MemberContext {
  return new MemberContext({ db, site, userId: enrollment.userId, now });
}

function summaryOf(lectures: Parameters<typeof progressOf>[0]): ProgressSummary {
  const progress = progressOf(lectures);
  return {
    totalLectures: progress.totalLecturesCount,
    completedLectures: progress.completedLecturesCount,
    readLectures: progress.readLecturesCount,
    percent: progress.totalLecturesCount === 0 ? 0 : Math.floor((progress.completedLecturesCount * 100) / progress.totalLecturesCount),
  };
}

export async function progressSummary(db: Database, site: Site, enrollment: Enrollment, now: Date = new Date()): Promise<ProgressSummary> {
  const sections = await sectionsOfCourse(memberView(db, site, enrollment, now), enrollment.courseId);
  return summaryOf(sections.flatMap((section) => section.lectures));
}

/** Every lecture of the course in curriculum order with the member's state, and the summary of the same lectures. */
export async function lectureProgress(db: Database, site: Site, enrollment: Enrollment, now: Date = new Date()): Promise<{ summary: ProgressSummary; lectures: LectureProgress[] }> {
  const sections = await sectionsOfCourse(memberView(db, site, enrollment, now), enrollment.courseId);
  const lectures = sections.flatMap((section) =>
    section.lectures.map((lecture) => ({
      lectureId: lecture.id,
      title: lecture.title,
      position: lecture.position,
      sectionId: section.id,
      sectionTitle: section.title,
      sectionPosition: section.position,
      state: lecture.state,
      positionSeconds: lecture.positionSeconds,
      completedAt: lecture.completedAt,
    })),
  );
  return { summary: summaryOf(sections.flatMap((section) => section.lectures)), lectures };
}

export interface NewEnrollment {
  userId: number;
  courseId: number;
  expiresAt?: string | undefined;
  hasLifetimeAccess?: boolean | undefined;
}

/** The access an enrollment body asks for: exactly one of a future `expiresAt` and `hasLifetimeAccess: true`. */
function accessOf(input: NewEnrollment, now: Date): { expiresAt: Date | null; lifetime: boolean } {
  const problems: FieldProblem[] = [];
  const expiresAt = input.expiresAt === undefined ? null : new Date(input.expiresAt);
  if (expiresAt !== null && input.hasLifetimeAccess === true) {
    problems.push({ pointer: '/hasLifetimeAccess', message: 'cannot be true together with expiresAt; give one of the two' });
  } else if (expiresAt === null && input.hasLifetimeAccess !== true) {
    problems.push({ pointer: input.hasLifetimeAccess === false ? '/hasLifetimeAccess' : '', message: 'give expiresAt (a future time) or hasLifetimeAccess: true' });
  } else if (expiresAt !== null && expiresAt.getTime() <= now.getTime()) {
    problems.push({ pointer: '/expiresAt', message: 'must be in the future' });
  }
  if (problems.length > 0) throw new ValidationError('The enrollment access is not valid.', problems);
  return { expiresAt, lifetime: expiresAt === null };
}

function alreadyEnrolled(): ConflictError {
  return new ConflictError('The member is already enrolled in this course; change the access of that enrollment with updateEnrollment instead.', 'already_enrolled');
}

/** Enrolls a member of this site in a course of this site (source `grant`); 409 `already_enrolled` for a second one. */
export async function enroll(db: Database, siteId: number, input: NewEnrollment, now: Date = new Date()): Promise<Enrollment> {
  const access = accessOf(input, now);
  const course = await coursesOfSite(db, siteId).where('courses.id', input.courseId).first('courses.id');
  if (!course) throw new ValidationError(`This site has no course ${input.courseId}.`, [{ pointer: '/courseId', message: 'is not a course of this site' }]);
  await requireMemberReference(db, siteId, input.userId);
  if (await db('enrollments').where({ course_id: input.courseId, user_id: input.userId }).first('id')) throw alreadyEnrolled();
  let id: number;
  try {
    const [inserted] = await db('enrollments').insert({
      site_id: siteId,
      course_id: input.courseId,
      user_id: input.userId,
      enrolled_at: now,
      expires_at: access.expiresAt,
      has_lifetime_access: access.lifetime,
      source: 'grant',
      version: 1,
      created_at: now,
      updated_at: now,
    });
    id = Number(inserted);
  } catch (error) {
    // The unique (course, user) index decides a race between two enrollments of the same member.
    if (await db('enrollments').where({ course_id: input.courseId, user_id: input.userId }).first('id')) throw alreadyEnrolled();
    throw error;
  }
  return requireEnrollment(db, siteId, id, now);
}

export interface EnrollmentChanges {
  expiresAt?: string | undefined;
  hasLifetimeAccess?: boolean | undefined;
}

/** Merge patch of the access, applied only at the version If-Match names (compare-and-set). */
export async function updateEnrollment(db: Database, siteId: number, enrollmentId: number, changes: EnrollmentChanges, expectedVersion: number, now: Date = new Date()): Promise<Enrollment> {
  const current = await requireEnrollment(db, siteId, enrollmentId, now);
  const columns: Record<string, unknown> = {};
  if (changes.expiresAt !== undefined && changes.hasLifetimeAccess === true) {
    throw new ValidationError('The enrollment access is not valid.', [{ pointer: '/hasLifetimeAccess', message: 'cannot be true together with expiresAt; give one of the two' }]);
  }
  if (changes.expiresAt !== undefined) {
    const expiresAt = new Date(changes.expiresAt);
    if (expiresAt.getTime() <= current.enrolledAt.getTime()) {
      throw new ValidationError('The enrollment access is not valid.', [{ pointer: '/expiresAt', message: 'must be after enrolledAt' }]);
    }
    Object.assign(columns, { expires_at: expiresAt, has_lifetime_access: false });
  } else if (changes.hasLifetimeAccess === true) {
    Object.assign(columns, { expires_at: null, has_lifetime_access: true });
  } else if (changes.hasLifetimeAccess === false && current.hasLifetimeAccess) {
    throw new ValidationError('The enrollment access is not valid.', [{ pointer: '/expiresAt', message: 'is required to end lifetime access' }]);
  }
  // A change that leaves the row as it is writes nothing (and keeps the ETag), like an empty patch.
  const unchanged =
    (columns.has_lifetime_access === true && current.hasLifetimeAccess) ||
    (columns.expires_at instanceof Date && !current.hasLifetimeAccess && current.expiresAt?.getTime() === columns.expires_at.getTime());
  await updateVersionedRow(db, 'enrollments', { id: enrollmentId, site_id: siteId }, expectedVersion, unchanged ? {} : columns, { what: 'enrollment', notFound: `This site has no enrollment ${enrollmentId}.` });
  return requireEnrollment(db, siteId, enrollmentId, now);
}

/** Ends the enrollment (deletes the row); the member's lecture_progress rows stay for a later enrollment. */
export async function deleteEnrollment(db: Database, siteId: number, enrollmentId: number): Promise<void> {
  const deleted = await db('enrollments').where({ id: enrollmentId, site_id: siteId }).delete();
  if (deleted === 0) throw new NotFoundError(`This site has no enrollment ${enrollmentId}.`);
}
