import { toDate } from '../db/connection.js';
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

interface Row {
  section_id: number | string;
  section_title: string;
  lecture_id: number | string | null;
  lecture_title: string | null;
  kind: string | null;
  duration_seconds: number | string | null;
  locked: number | boolean | null;
  unlock_at: unknown;
  state: string | null;
}

/**
 * The syllabus of a course the member is enrolled in: `course` is one of their enrollments (`enrolledCourse`), so the
 * enrollment is not looked up again. Sections without lectures stay (left join); no progress row means unread.
 */
export async function lectureSyllabus(ctx: MemberContext, course: CourseRecord): Promise<LectureSyllabus> {
  const rows: Row[] = await ctx
    .db('course_sections as s')
    .leftJoin('lectures as l', 'l.section_id', 's.id')
    .leftJoin('lecture_progress as p', (join) => {
      join.on('p.lecture_id', '=', 'l.id').andOnVal('p.user_id', '=', ctx.userId);
    })
    .where('s.course_id', course.id)
    .orderBy([{ column: 's.position' }, { column: 's.id' }, { column: 'l.position' }, { column: 'l.id' }])
    .select('s.id as section_id', 's.title as section_title', 'l.id as lecture_id', 'l.title as lecture_title', 'l.kind as kind', 'l.duration_seconds as duration_seconds', 'l.locked as locked', 'l.unlock_at as unlock_at', 'p.state as state');
  const now = ctx.now.getTime();
  const sections: SyllabusSection[] = [];
  let section: SyllabusSection | undefined;
  let total = 0;
  let completed = 0;
  let read = 0;
  let totalDuration = 0;
  let completedDuration = 0;
  for (const row of rows) {
    const sectionId = Number(row.section_id);
    if (section === undefined || section.id !== sectionId) {
      section = { id: sectionId, title: row.section_title, position: sections.length + 1, lectures: [] };
      sections.push(section);
    }
    if (row.lecture_id === null) continue;
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
  }
  return {
    sections,
    progress: progressRecord({ total, completed, read, totalDuration, completedDuration }),
  };
}
