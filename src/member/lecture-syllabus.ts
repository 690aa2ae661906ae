import { compiledSelect } from '../db/compiled-select.js';
import { toDate } from '../db/connection.js';
import { foldSections, sectionsWithLectures, SYLLABUS_ORDER, syllabusColumns, withProgressOf, type SyllabusRow } from '../data/syllabus.js';
import type { MemberContext } from './context.js';
import { progressRecord, type CourseProgressRecord, type CourseRecord, type LectureState } from './courses.js';

/**
 * One enrolled course's syllabus lecture by lecture, as the member's MCP tools show it: every section in order with its
 * lectures (kind, duration, lock state, unlock time and the member's state) and the progress over exactly those
 * lectures, built in one pass over one query's rows. The lecture set, order, states and lock rule are those of the
 * member GraphQL API's `Course.sections` and `detailProgress` (`src/member/courses.ts`).
 */

export interface SyllabusLecture {
  id: number;
  title: string;
  /** 1-based within the section. */
  position: number;
  kind: string;
  state: LectureState;
  /** The operator's lock flag set, or `unlockAt` still in the future (relative to the request's clock). */
  isLocked: boolean;
  unlockAt: Date | null;
  durationSeconds: number;
}

export interface SyllabusSection {
  id: number;
  title: string;
  /** 1-based within the course. */
  position: number;
  lectures: SyllabusLecture[];
}

export interface LectureSyllabus {
  sections: SyllabusSection[];
  progress: CourseProgressRecord;
}

/**
 * The syllabus of a course the member is enrolled in: `course` is one of their enrollments (`enrolledCourse`), so the
 * enrollment is not looked up again. Sections without lectures stay (left join); no progress row means unread.
 */
type LectureSyllabusRow = Pick<SyllabusRow, 'section_id' | 'section_title' | 'lecture_id' | 'lecture_title' | 'kind' | 'duration_seconds' | 'locked' | 'unlock_at' | 'state'>;

/** One course's rows with the member's progress: built with knex once, afterwards only bound (the member, then the course). */
const lectureSyllabusRows = compiledSelect<LectureSyllabusRow, [number, number]>((db, userId, courseId) =>
  withProgressOf(sectionsWithLectures(db), userId)
    .where('s.course_id', courseId)
    .orderBy([...SYLLABUS_ORDER])
    .select(syllabusColumns('section_id', 'section_title', 'lecture_id', 'lecture_title', 'kind', 'duration_seconds', 'locked', 'unlock_at', 'state')),
);

export async function lectureSyllabus(ctx: MemberContext, course: CourseRecord): Promise<LectureSyllabus> {
  const rows = await lectureSyllabusRows(ctx.db, ctx.userId, course.id);
  const now = ctx.now.getTime();
  let total = 0;
  let completed = 0;
  let read = 0;
  let totalDuration = 0;
  let completedDuration = 0;
  const sections = foldSections(
    rows,
    (row, position): SyllabusSection => ({ id: Number(row.section_id), title: row.section_title, position, lectures: [] }),
    (section, row) => {
      const state: LectureState = row.state === 'completed' || row.state === 'read' ? row.state : 'unread';
      const durationSeconds = Number(row.duration_seconds ?? 0);
      const unlockAt = toDate(row.unlock_at);
      total += 1;
      totalDuration += durationSeconds;
      if (state === 'completed') {
        completed += 1;
        completedDuration += durationSeconds;
      } else if (state === 'read') {
        read += 1;
      }
      section.lectures.push({
        id: Number(row.lecture_id),
        title: row.lecture_title ?? '',
        position: section.lectures.length + 1,
        kind: row.kind ?? 'video',
        state,
        isLocked: Boolean(row.locked) || (unlockAt !== null && unlockAt.getTime() > now),
        unlockAt,
        durationSeconds,
      });
    },
  );
  return {
    sections,
    progress: progressRecord({ total, completed, read, totalDuration, completedDuration }),
  };
}
