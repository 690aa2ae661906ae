import type { Knex } from 'knex';
import { fetchPage, pageWindow, type Page, type PageArgs, type SortKey } from '../member/pagination.js';
import { ValidationError } from '../shared/errors.js';
import { CATALOGUE_LIMITS, type CatalogContext } from './context.js';
import { containsPattern } from '../db/queries.js';
import { moneyFromColumns, type Money } from '../shared/money.js';

/**
 * The public course catalogue of a site: published courses only (drafts and archived courses never show), with what a
 * prospective student may see before buying: title, description, price, lecturers and the size of the syllabus.
 * No member data, no lecture content, no lock or unlock schedule.
 */

export interface PublicCourse {
  id: number;
  slug: string;
  title: string;
  description: string | null;
  coverImageUrl: string | null;
  /** Null when the course has no list price (free, or sold only through a membership). */
  price: Money | null;
  /** Lecturer display names, in the course's order. */
  lecturers: string[];
  sectionCount: number;
  lectureCount: number;
  /** Lectures offered as a free preview. */
  previewLectureCount: number;
  /** Sum of the lectures' durations, whole seconds. */
  totalDurationSeconds: number;
  /** The course's page on the school site: `{origin}/courses/{slug}`. */
  url: string;
}

/** One chapter of a public syllabus: titles and durations only. */
export interface PublicSection {
  title: string;
  /** 1-based, in course order. */
  position: number;
  durationSeconds: number;
  lectures: PublicLecture[];
}

export interface PublicLecture {
  title: string;
  /** 1-based within its section. */
  position: number;
  /** video | text | audio | quiz | file */
  kind: string;
  durationSeconds: number;
  /** Offered as a free preview to anyone. */
  isPreview: boolean;
}

export interface PublicSyllabus {
  course: PublicCourse;
  sections: PublicSection[];
}

/** Catalogue order: by title, ties broken by id. */
const COURSE_ORDER: SortKey = [
  { column: 'courses.title', descending: false },
  { column: 'courses.id', descending: false },
];

const COURSE_COLUMNS = [
  'courses.id as id',
  'courses.slug as slug',
  'courses.title as title',
  'courses.description as description',
  'courses.cover_image_url as cover_image_url',
  'courses.price_amount as price_amount',
  'courses.price_currency as price_currency',
];

interface CourseRow extends Record<string, unknown> {
  id: number | string;
  slug: string;
  title: string;
  description: string | null;
  cover_image_url: string | null;
  price_amount: number | string | null;
  price_currency: string | null;
}

interface CourseStats {
  sectionCount: number;
  lectureCount: number;
  previewLectureCount: number;
  totalDurationSeconds: number;
}

export function courseUrl(origin: string, slug: string): string {
  return `${origin}/courses/${encodeURIComponent(slug)}`;
}

/** The published courses of the context's site: the base of every catalogue query. */
function publishedCourses(ctx: CatalogContext): Knex.QueryBuilder {
  return ctx.db('courses').where('courses.site_id', ctx.site.id).where('courses.status', 'published');
}

const MAX_TERMS = 8;
const MAX_QUERY_LENGTH = 200;

/** The words of a search query: whitespace-separated, at most 8, each matched as a case-insensitive substring. */
export function searchTerms(query: string | null | undefined): string[] {
  if (query === null || query === undefined) return [];
  if (query.length > MAX_QUERY_LENGTH) throw new ValidationError(`query must be at most ${MAX_QUERY_LENGTH} characters`, [{ pointer: '/query', message: `at most ${MAX_QUERY_LENGTH} characters` }]);
  return [...new Set(query.toLowerCase().split(/\s+/).filter((term) => term !== ''))].slice(0, MAX_TERMS);
}

/** Every term must occur in the title or the description (case-insensitive for ASCII letters on every store). */
function applySearch(query: Knex.QueryBuilder, terms: readonly string[]): void {
  for (const term of terms) {
    const pattern = containsPattern(term);
    query.where((match) => {
      match.whereRaw("lower(courses.title) like ? escape '!'", [pattern]).orWhereRaw("lower(coalesce(courses.description, '')) like ? escape '!'", [pattern]);
    });
  }
}

/** Syllabus size and lecturers of many courses in three set-based queries. */
async function statsOf(ctx: CatalogContext, courseIds: readonly number[]): Promise<{ stats: Map<number, CourseStats>; lecturers: Map<number, string[]> }> {
  const stats = new Map<number, CourseStats>(courseIds.map((id) => [id, { sectionCount: 0, lectureCount: 0, previewLectureCount: 0, totalDurationSeconds: 0 }]));
  const lecturers = new Map<number, string[]>(courseIds.map((id) => [id, []]));
  if (courseIds.length === 0) return { stats, lecturers };
  const ids = [...new Set(courseIds)];
  const [sectionRows, lectureRows, lecturerRows] = await Promise.all([
    ctx.db('course_sections').whereIn('course_id', ids).groupBy('course_id').select('course_id').count({ total: '*' }) as Promise<Array<{ course_id: number | string; total: number | string }>>,
    // Lectures as the syllabus holds them: through their sections.
    ctx
      .db('lectures as l')
      .join('course_sections as s', 's.id', 'l.section_id')
      .whereIn('s.course_id', ids)
      .groupBy('s.course_id')
      .select('s.course_id as course_id')
      .count({ total: '*' })
      .sum({ duration: 'l.duration_seconds', previews: 'l.is_preview' }) as Promise<Array<{ course_id: number | string; total: number | string; duration: number | string | null; previews: number | string | null }>>,
    ctx
      .db('course_lecturers as cl')
      .join('lecturer_profiles as lp', 'lp.id', 'cl.lecturer_profile_id')
      .whereIn('cl.course_id', ids)
      .where('lp.site_id', ctx.site.id)
      .orderBy([{ column: 'cl.course_id' }, { column: 'cl.position' }, { column: 'lp.display_name' }, { column: 'lp.id' }])
      .select('cl.course_id as course_id', 'lp.display_name as display_name') as Promise<Array<{ course_id: number | string; display_name: string }>>,
  ]);
  for (const row of sectionRows) {
    const entry = stats.get(Number(row.course_id));
    if (entry) entry.sectionCount = Number(row.total);
  }
  for (const row of lectureRows) {
    const entry = stats.get(Number(row.course_id));
    if (!entry) continue;
    entry.lectureCount = Number(row.total);
    entry.totalDurationSeconds = Number(row.duration ?? 0);
    entry.previewLectureCount = Number(row.previews ?? 0);
  }
  for (const row of lecturerRows) lecturers.get(Number(row.course_id))?.push(row.display_name);
  return { stats, lecturers };
}

async function toPublicCourses(ctx: CatalogContext, rows: readonly CourseRow[]): Promise<PublicCourse[]> {
  const { stats, lecturers } = await statsOf(
    ctx,
    rows.map((row) => Number(row.id)),
  );
  return rows.map((row) => {
    const id = Number(row.id);
    const courseStats = stats.get(id) ?? { sectionCount: 0, lectureCount: 0, previewLectureCount: 0, totalDurationSeconds: 0 };
    return {
      id,
      slug: row.slug,
      title: row.title,
      description: row.description,
      coverImageUrl: row.cover_image_url || null,
      price: moneyFromColumns(row.price_amount, row.price_currency),
      lecturers: lecturers.get(id) ?? [],
      ...courseStats,
      url: courseUrl(ctx.site.origin, row.slug),
    };
  });
}

/**
 * One page of the published courses, by title; with `query`, only courses whose title or description contains every
 * word of it. Default 10 per page, at most 50. Throws ValidationError for bad window arguments or an overlong query.
 */
export async function listPublicCourses(ctx: CatalogContext, args: PageArgs & { query?: string | null }): Promise<Page<PublicCourse>> {
  const terms = searchTerms(args.query);
  const window = pageWindow(args, CATALOGUE_LIMITS, COURSE_ORDER);
  const page = await fetchPage<CourseRow>(
    () => {
      const query = publishedCourses(ctx).select(COURSE_COLUMNS);
      applySearch(query, terms);
      return query;
    },
    COURSE_ORDER,
    window,
  );
  return { ...page, nodes: await toPublicCourses(ctx, page.nodes) };
}

/** Number of published courses at the site. */
export async function countPublicCourses(ctx: CatalogContext): Promise<number> {
  const rows = (await publishedCourses(ctx).count({ total: '*' })) as Array<{ total: number | string }>;
  return Number(rows[0]?.total ?? 0);
}

/** A published course of the site by id or slug; null for drafts, archived courses, other sites' courses and unknown ones. */
export async function findPublicCourse(ctx: CatalogContext, ref: { id: number } | { slug: string }): Promise<PublicCourse | null> {
  const query = publishedCourses(ctx).select(COURSE_COLUMNS).first();
  if ('id' in ref) query.where('courses.id', ref.id);
  else query.where('courses.slug', ref.slug);
  const row = (await query) as CourseRow | undefined;
  if (!row) return null;
  const [course] = await toPublicCourses(ctx, [row]);
  return course ?? null;
}

interface SyllabusRow {
  section_id: number | string;
  section_title: string;
  lecture_id: number | string | null;
  lecture_title: string | null;
  kind: string | null;
  duration_seconds: number | string | null;
  is_preview: number | boolean | null;
}

/**
 * The public syllabus of a published course: sections in course order, each with its lectures' titles, kinds,
 * durations and preview flags, in the order the member syllabus uses (position, then id). Null when the course is not
 * in the public catalogue. One query for the sections and lectures, plus the course itself.
 */
export async function publicSyllabus(ctx: CatalogContext, ref: { id: number } | { slug: string }): Promise<PublicSyllabus | null> {
  const course = await findPublicCourse(ctx, ref);
  if (!course) return null;
  const rows: SyllabusRow[] = await ctx
    .db('course_sections as s')
    .leftJoin('lectures as l', 'l.section_id', 's.id')
    .where('s.course_id', course.id)
    .orderBy([{ column: 's.position' }, { column: 's.id' }, { column: 'l.position' }, { column: 'l.id' }])
    .select('s.id as section_id', 's.title as section_title', 'l.id as lecture_id', 'l.title as lecture_title', 'l.kind as kind', 'l.duration_seconds as duration_seconds', 'l.is_preview as is_preview');
  const sections: PublicSection[] = [];
  let current: (PublicSection & { id: number }) | undefined;
  for (const row of rows) {
    const sectionId = Number(row.section_id);
    if (!current || current.id !== sectionId) {
      current = { id: sectionId, title: row.section_title, position: sections.length + 1, durationSeconds: 0, lectures: [] };
      sections.push(current);
    }
    if (row.lecture_id === null) continue;
    const durationSeconds = Number(row.duration_seconds ?? 0);
    current.durationSeconds += durationSeconds;
    current.lectures.push({ title: row.lecture_title ?? '', position: current.lectures.length + 1, kind: row.kind ?? 'video', durationSeconds, isPreview: Boolean(row.is_preview) });
  }
  return { course, sections: sections.map(({ title, position, durationSeconds, lectures }) => ({ title, position, durationSeconds, lectures })) };
}
