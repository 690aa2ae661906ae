import type { Knex } from 'knex';
import { requireDate, toDate } from '../db/connection.js';
import type { Queryable } from '../db/queries.js';
import { selectColumns } from './columns.js';

/**
 * The `enrollments` table: a member's access to a course, lifetime or until `expires_at`, and where they stopped
 * watching. The member's enrolled courses and the operators' enrollments are filters and projections of these.
 */

export type EnrollmentSource = 'purchase' | 'grant' | 'import' | 'membership';
const SOURCES: readonly EnrollmentSource[] = ['purchase', 'grant', 'import', 'membership'];

/** A row as the drivers answer it (MySQL may answer numbers as strings; times come as Date, string or number). */
export interface EnrollmentRow {
  id: number | string;
  user_id: number | string;
  course_id: number | string;
  enrolled_at: unknown;
  expires_at: unknown;
  has_lifetime_access: number | boolean;
  source: string;
  last_watched_lecture_id: number | string | null;
  last_watched_position_seconds: number | string | null;
  last_watched_at: unknown;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

export const ENROLLMENT_COLUMNS = [
  'id',
  'user_id',
  'course_id',
  'enrolled_at',
  'expires_at',
  'has_lifetime_access',
  'source',
  'last_watched_lecture_id',
  'last_watched_position_seconds',
  'last_watched_at',
  'version',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof EnrollmentRow>;

export interface LastWatched {
  lectureId: number;
  positionSeconds: number;
  watchedAt: Date | null;
}

export interface EnrollmentData {
  id: number;
  userId: number;
  courseId: number;
  enrolledAt: Date;
  /** True when access never ends; an enrollment with no end date is lifetime access, whatever the flag says. */
  hasLifetimeAccess: boolean;
  /** When access ends; null exactly when `hasLifetimeAccess`. A past value means access has ended. */
  expiresAt: Date | null;
  source: EnrollmentSource;
  /** Where the member stopped watching; null before the first watch. */
  lastWatched: LastWatched | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Every column of `enrollments` (or of the alias `table`), for a select. */
export function enrollmentColumns(table = 'enrollments'): string[] {
  return selectColumns(table, ENROLLMENT_COLUMNS);
}

export function enrollmentFromRow(row: EnrollmentRow): EnrollmentData {
  const expiresAt = toDate(row.expires_at);
  const hasLifetimeAccess = Boolean(row.has_lifetime_access) || expiresAt === null;
  const lectureId = row.last_watched_lecture_id === null ? null : Number(row.last_watched_lecture_id);
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    courseId: Number(row.course_id),
    enrolledAt: requireDate(row.enrolled_at),
    hasLifetimeAccess,
    expiresAt: hasLifetimeAccess ? null : expiresAt,
    source: SOURCES.find((source) => source === row.source) ?? 'grant',
    lastWatched: lectureId === null ? null : { lectureId, positionSeconds: Number(row.last_watched_position_seconds ?? 0), watchedAt: toDate(row.last_watched_at) },
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

/** The enrollments of one site: the base of every enrollments query. */
export function enrollmentsOfSite(db: Queryable, siteId: number): Knex.QueryBuilder {
  return db('enrollments').where('enrollments.site_id', siteId);
}
