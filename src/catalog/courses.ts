import type { Knex } from 'knex';
import { fetchPage, pageWindow, type Page, type PageArgs, type SortKey, withNodes } from '../member/pagination.js';
import { ValidationError } from '../shared/errors.js';
import { CATALOGUE_LIMITS, type CatalogContext } from './context.js';
import { containsPattern } from '../db/queries.js';
import type { Money } from '../shared/money.js';
import { foldSections, sectionsWithLectures, SYLLABUS_ORDER, syllabusColumns, type SyllabusRow } from '../data/syllabus.js';
import {
  courseColumns,
  courseFromRow,
  coursesOfSite,
  courseUrl,
  emptySyllabusCounts,
  lecturersOfCourses,
  lectureTotals,
  sectionCounts,
  syllabusCounts,
  type CourseRow,
  type SyllabusCounts,
} from '../data/courses.js';

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

/** The published courses of the context's site: the base of every catalogue query. */
function publishedCourses(ctx: CatalogContext): Knex.QueryBuilder {
  return coursesOfSite(ctx.db, ctx.site.id).where('courses.status', 'published');
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
async function statsOf(ctx: CatalogContext, courseIds: readonly number[]): Promise<{ stats: Map<number, SyllabusCounts>; lecturers: Map<number, string[]> }> {
  const lecturers = new Map<number, string[]>(courseIds.map((id) => [id, []]));
  if (courseIds.length === 0) return { stats: syllabusCounts(courseIds, new Map(), new Map()), lecturers };
  const [sections, lectures, lecturerRows] = await Promise.all([
    sectionCounts(ctx.db, courseIds),
    lectureTotals(ctx.db, courseIds),
    lecturersOfCourses(ctx.db, ctx.site.id, courseIds)
      .orderBy([{ column: 'cl.course_id' }, { column: 'cl.position' }, { column: 'lp.display_name' }, { column: 'lp.id' }])
      .select('cl.course_id as course_id', 'lp.display_name as display_name') as Promise<Array<{ course_id: number | string; display_name: string }>>,
  ]);
  for (const row of lecturerRows) lecturers.get(Number(row.course_id))?.push(row.display_name);
  return { stats: syllabusCounts(courseIds, sections, lectures), lecturers };
}

async function toPublicCourses(ctx: CatalogContext, rows: readonly CourseRow[]): Promise<PublicCourse[]> {
  const courses = rows.map(courseFromRow);
  const { stats, lecturers } = await statsOf(
    ctx,
    courses.map((course) => course.id),
  );
  return courses.map((course) => {
    const { sectionCount, lectureCount, previewLectureCount, totalDurationSeconds } = stats.get(course.id) ?? emptySyllabusCounts();
    const { id, slug, title, description, coverImageUrl, price } = course;
    return {
      id, slug, title, description, coverImageUrl, price,
      lecturers: lecturers.get(id) ?? [],
      sectionCount,
      lectureCount,
      previewLectureCount,
      totalDurationSeconds,
      url: courseUrl(ctx.site.origin, slug),
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
  const page = await fetchPage<CourseRow & Record<string, unknown>>(
    () => {
      const query = publishedCourses(ctx).select(courseColumns());
      applySearch(query, terms);
      return query;
    },
    COURSE_ORDER,
    window,
  );
  return withNodes(page, await toPublicCourses(ctx, page.nodes));
}

/** Number of published courses at the site. */
export async function countPublicCourses(ctx: CatalogContext): Promise<number> {
  const rows = (await publishedCourses(ctx).count({ total: '*' })) as Array<{ total: number | string }>;
  return Number(rows[0]?.total ?? 0);
}

/** A published course of the site by id or slug; null for drafts, archived courses, other sites' courses and unknown ones. */
export async function findPublicCourse(ctx: CatalogContext, ref: { id: number } | { slug: string }): Promise<PublicCourse | null> {
  const query = publishedCourses(ctx).select(courseColumns()).first();
  if ('id' in ref) query.where('courses.id', ref.id);
  else query.where('courses.slug', ref.slug);
  const row = (await query) as CourseRow | undefined;
  if (!row) return null;
  const [course] = await toPublicCourses(ctx, [row]);
  return course ?? null;
}

/**
 * The public syllabus of a published course: sections in course order, each with its lectures' titles, kinds,
 * durations and preview flags, in the order the member syllabus uses (position, then id). Null when the course is not
 * in the public catalogue. One query for the sections and lectures, plus the course itself.
 */
export async function publicSyllabus(ctx: CatalogContext, ref: { id: number } | { slug: string }): Promise<PublicSyllabus | null> {
  const course = await findPublicCourse(ctx, ref);
  if (!course) return null;
  const rows: Array<Pick<SyllabusRow, 'section_id' | 'section_title' | 'lecture_id' | 'lecture_title' | 'kind' | 'duration_seconds' | 'is_preview'>> = await sectionsWithLectures(ctx.db)
    .where('s.course_id', course.id)
    .orderBy([...SYLLABUS_ORDER])
    .select(syllabusColumns('section_id', 'section_title', 'lecture_id', 'lecture_title', 'kind', 'duration_seconds', 'is_preview'));
  const sections = foldSections(
    rows,
    (row, position): PublicSection => ({ title: row.section_title, position, durationSeconds: 0, lectures: [] }),
    (section, row) => {
      const durationSeconds = Number(row.duration_seconds ?? 0);
      section.durationSeconds += durationSeconds;
      section.lectures.push({ title: row.lecture_title ?? '', position: section.lectures.length + 1, kind: row.kind ?? 'video', durationSeconds, isPreview: Boolean(row.is_preview) });
    },
  );
  return { course, sections };
}
