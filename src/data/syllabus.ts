import type { Knex } from 'knex';
import type { Queryable } from '../db/queries.js';

/**
 * The syllabus join: a course's sections (`s`) with their lectures (`l`), left-joined so sections without lectures
 * stay, optionally with one member's progress rows (`p`). The public syllabus, the member's syllabus and progress,
 * and the operators' curriculum all read it; each selects the columns it shows.
 */

/** Every column the join can answer, by the name it has in the row. */
export interface SyllabusRow {
  section_id: number | string;
  course_id: number | string;
  section_title: string;
  section_position: number | string;
  /** Null for a section without lectures (the left join's empty side), as every lecture column is then. */
  lecture_id: number | string | null;
  lecture_title: string | null;
  kind: string | null;
  duration_seconds: number | string | null;
  locked: number | boolean | null;
  unlock_at: unknown;
  is_preview: number | boolean | null;
  /** The member's progress; null without a progress row (unread). */
  state: string | null;
  position_seconds: number | string | null;
  completed_at: unknown;
}

const SYLLABUS_SOURCES: Readonly<Record<keyof SyllabusRow, string>> = {
  section_id: 's.id',
  course_id: 's.course_id',
  section_title: 's.title',
  section_position: 's.position',
  lecture_id: 'l.id',
  lecture_title: 'l.title',
  kind: 'l.kind',
  duration_seconds: 'l.duration_seconds',
  locked: 'l.locked',
  unlock_at: 'l.unlock_at',
  is_preview: 'l.is_preview',
  state: 'p.state',
  position_seconds: 'p.position_seconds',
  completed_at: 'p.completed_at',
};

/** The select arguments for the named row columns (`s.id as section_id`, …). */
export function syllabusColumns(...names: ReadonlyArray<keyof SyllabusRow>): string[] {
  return names.map((name) => `${SYLLABUS_SOURCES[name]} as ${name}`);
}

/** Sections with their lectures; callers scope it to courses (`s.course_id`). */
export function sectionsWithLectures(db: Queryable): Knex.QueryBuilder {
  return db('course_sections as s').leftJoin('lectures as l', 'l.section_id', 's.id');
}

/** Adds one member's progress rows (`p`): a lecture without one is unread. */
export function withProgressOf(query: Knex.QueryBuilder, userId: number): Knex.QueryBuilder {
  return query.leftJoin('lecture_progress as p', (join) => {
    join.on('p.lecture_id', '=', 'l.id').andOnVal('p.user_id', '=', userId);
  });
}

/** Syllabus order: sections by position, lectures by position within them, ids breaking ties. */
export const SYLLABUS_ORDER = [{ column: 's.position' }, { column: 's.id' }, { column: 'l.position' }, { column: 'l.id' }] as const;

/**
 * The sections of one course's rows in syllabus order, each built once (`section`, given its 1-based position) and
 * given its lectures in order (`addLecture`); rows of a section without lectures add none.
 */
export function foldSections<Row extends Pick<SyllabusRow, 'section_id' | 'lecture_id'>, Section>(
  rows: readonly Row[],
  section: (row: Row, position: number) => Section,
  addLecture: (section: Section, row: Row & { lecture_id: number | string }) => void,
): Section[] {
  const sections: Section[] = [];
  let currentId: number | undefined;
  let current: Section | undefined;
  for (const row of rows) {
    const sectionId = Number(row.section_id);
    if (current === undefined || currentId !== sectionId) {
      current = section(row, sections.length + 1);
      currentId = sectionId;
      sections.push(current);
    }
    if (row.lecture_id !== null) addLecture(current, row as Row & { lecture_id: number | string });
  }
  return sections;
}
