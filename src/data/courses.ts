import type { Knex } from 'knex';
import { requireDate } from '../db/connection.js';
import type { Queryable } from '../db/queries.js';
import { moneyFromColumns, type Money } from '../shared/money.js';
import { selectColumns } from './columns.js';

/**
 * The `courses` table: its row, its columns, the record every view starts from, the site's courses as a query, and
 * the per-course syllabus counts and lecturers computed set-based for a whole page. The public catalogue, the
 * member's enrolled courses and the operators' courses are filters and projections of these.
 */

export const COURSE_STATUSES = ['draft', 'published', 'archived'] as const;
export type CourseStatus = (typeof COURSE_STATUSES)[number];

/** A row as the drivers answer it (MySQL may answer numbers as strings; times come as Date, string or number). */
export interface CourseRow {
  id: number | string;
  slug: string;
  title: string;
  description: string | null;
  cover_image_url: string | null;
  status: string;
  price_amount: number | string | null;
  price_currency: string | null;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

export const COURSE_COLUMNS = [
  'id',
  'slug',
  'title',
  'description',
  'cover_image_url',
  'status',
  'price_amount',
  'price_currency',
  'version',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof CourseRow>;

export interface CourseData {
  id: number;
  slug: string;
  title: string;
  description: string | null;
  /** Null when none is set (an empty string reads as none). */
  coverImageUrl: string | null;
  status: CourseStatus;
  /** Null when the course has no list price (free, or sold only through a membership). */
  price: Money | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Every column of `courses` (or of the alias `table`), for a select; `renames` for joins with another id. */
export function courseColumns(table = 'courses', renames: Partial<Record<(typeof COURSE_COLUMNS)[number], string>> = {}): string[] {
  return selectColumns(table, COURSE_COLUMNS, renames);
}

export function courseFromRow(row: CourseRow): CourseData {
  return {
    id: Number(row.id),
    slug: row.slug,
    title: row.title,
    description: row.description,
    coverImageUrl: row.cover_image_url || null,
    status: COURSE_STATUSES.find((status) => status === row.status) ?? 'draft',
    price: moneyFromColumns(row.price_amount, row.price_currency),
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

/** The courses of one site: the base of every courses query. */
export function coursesOfSite(db: Queryable, siteId: number): Knex.QueryBuilder {
  return db('courses').where('courses.site_id', siteId);
}

/** The course's page on the school site: `{origin}/courses/{slug}`. */
export function courseUrl(origin: string, slug: string): string {
  return `${origin}/courses/${encodeURIComponent(slug)}`;
}

/** The size of a course's syllabus, counted through its sections (lectures as the syllabus holds them). */
export interface SyllabusCounts {
  sectionCount: number;
  lectureCount: number;
  previewLectureCount: number;
  totalDurationSeconds: number;
}

export function emptySyllabusCounts(): SyllabusCounts {
  return { sectionCount: 0, lectureCount: 0, previewLectureCount: 0, totalDurationSeconds: 0 };
}

/** Sections per course: one grouped query. */
export async function sectionCounts(db: Queryable, courseIds: readonly number[]): Promise<Map<number, number>> {
  const rows = (await db('course_sections').whereIn('course_id', [...new Set(courseIds)]).groupBy('course_id').select('course_id').count({ total: '*' })) as Array<{ course_id: number | string; total: unknown }>;
  return new Map(rows.map((row) => [Number(row.course_id), Number(row.total ?? 0)]));
}

/** Lectures, their total duration and the preview lectures per course, through the sections: one grouped query. */
export async function lectureTotals(db: Queryable, courseIds: readonly number[]): Promise<Map<number, Omit<SyllabusCounts, 'sectionCount'>>> {
  const rows = (await db('lectures as l')
    .join('course_sections as s', 's.id', 'l.section_id')
    .whereIn('s.course_id', [...new Set(courseIds)])
    .groupBy('s.course_id')
    .select('s.course_id as course_id')
    .count({ total: '*' })
    .sum({ duration: 'l.duration_seconds', previews: 'l.is_preview' })) as Array<{ course_id: number | string; total: unknown; duration: unknown; previews: unknown }>;
  // MySQL answers SUM() as a DECIMAL string and nothing as null.
  return new Map(rows.map((row) => [Number(row.course_id), { lectureCount: Number(row.total ?? 0), totalDurationSeconds: Number(row.duration ?? 0), previewLectureCount: Number(row.previews ?? 0) }]));
}

/** The syllabus counts of many courses: `sectionCounts` and `lectureTotals` together. */
export function syllabusCounts(courseIds: readonly number[], sections: ReadonlyMap<number, number>, lectures: ReadonlyMap<number, Omit<SyllabusCounts, 'sectionCount'>>): Map<number, SyllabusCounts> {
  return new Map(courseIds.map((id) => [id, Object.assign(emptySyllabusCounts(), { sectionCount: sections.get(id) ?? 0 }, lectures.get(id))]));
}

/**
 * The lecturer profiles (`lp`) assigned to the given courses (`cl`), of the site only. Callers add the order and the
 * columns they show.
 */
export function lecturersOfCourses(db: Queryable, siteId: number, courseIds: readonly number[]): Knex.QueryBuilder {
  return db('course_lecturers as cl').join('lecturer_profiles as lp', 'lp.id', 'cl.lecturer_profile_id').whereIn('cl.course_id', [...new Set(courseIds)]).where('lp.site_id', siteId);
}
