import { progressRecord, type CourseProgressRecord, type CourseRecord } from './courses.js';
import type { MemberContext } from './context.js';

/**
 * Progress summaries of many courses aggregated in the database: one grouped statement counts each course's lectures,
 * the member's completed and read ones and their durations, instead of loading every lecture row of every course.
 * The numbers are those `progressOf` computes from the full syllabus (`sectionsOfCourse`): the same lecture set (every
 * lecture of every section of the course, locked ones included) and the same states (no progress row = unread).
 */

interface SummaryRow {
  course_id: number | string;
  total: number | string | null;
  total_duration: number | string | null;
  completed: number | string | null;
  read_count: number | string | null;
  completed_duration: number | string | null;
}

/** MySQL answers SUM() as a DECIMAL string; SQLite as a number. */
const count = (value: number | string | null): number => Number(value ?? 0);

function summaryFromRow(row: SummaryRow | undefined): CourseProgressRecord {
  return progressRecord({
    total: row ? count(row.total) : 0,
    completed: row ? count(row.completed) : 0,
    read: row ? count(row.read_count) : 0,
    totalDuration: row ? count(row.total_duration) : 0,
    completedDuration: row ? count(row.completed_duration) : 0,
  });
}

/** The summaries of the given courses (ids of the member's enrollments), in their order. */
async function loadProgressSummaries(ctx: MemberContext, courseIds: readonly number[]): Promise<CourseProgressRecord[]> {
  const { db } = ctx;
  const rows: SummaryRow[] = await db('course_sections as s')
    .join('lectures as l', 'l.section_id', 's.id')
    .leftJoin('lecture_progress as p', (join) => {
      join.on('p.lecture_id', '=', 'l.id').andOnVal('p.user_id', '=', ctx.userId);
    })
    .whereIn('s.course_id', [...courseIds])
    .groupBy('s.course_id')
    .select(
      's.course_id as course_id',
      db.raw('count(l.id) as total'),
      db.raw('sum(l.duration_seconds) as total_duration'),
      db.raw("sum(case when p.state = 'completed' then 1 else 0 end) as completed"),
      db.raw("sum(case when p.state = 'read' then 1 else 0 end) as read_count"),
      db.raw("sum(case when p.state = 'completed' then l.duration_seconds else 0 end) as completed_duration"),
    );
  const byCourse = new Map(rows.map((row) => [Number(row.course_id), row]));
  return courseIds.map((id) => summaryFromRow(byCourse.get(id)));
}

/**
 * The member's progress over one of their courses (`CourseProgressRecord`, the GraphQL `detailProgress`), batched:
 * all the courses asked for in one tick cost one grouped query together. `course` is one of the member's enrollments
 * (`listEnrolledCourses`, `enrolledCourse`), so the enrollment is not checked again. Use it where only the summary is
 * needed; where the syllabus is loaded anyway, its rows give the progress at no extra cost.
 */
export async function progressSummary(ctx: MemberContext, course: CourseRecord): Promise<CourseProgressRecord> {
  return ctx.loader<number, CourseProgressRecord>('course-progress-summary', (ids) => loadProgressSummaries(ctx, ids)).load(course.id);
}
