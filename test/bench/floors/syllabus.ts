import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Knex } from 'knex';

/** The page the bench query asks for (`enrolledCourses(first: 20)`). */
const PAGE_SIZE = 20;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** A time column as the driver hands it over: a Date (mysql2), epoch milliseconds or a string (SQLite). */
function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  const text = String(value);
  return new Date(/^\d+$/.test(text) ? Number(text) : text);
}

/** RFC 3339, UTC, whole seconds: how the member API spells a DateTime. */
function dateTime(date: Date | null): string | null {
  return date === null ? null : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

interface CourseRow {
  id: number;
  expires_at: unknown;
  has_lifetime_access: number | boolean;
  last_watched_lecture_id: number | null;
  last_watched_position_seconds: number | null;
  course_id: number;
  slug: string;
}

interface SyllabusRow {
  section_id: number;
  course_id: number;
  section_title: string;
  lecture_title: string | null;
  duration_seconds: number | null;
  locked: number | boolean | null;
  unlock_at: unknown;
  state: string | null;
}

interface LectureJson {
  title: string;
  state: string;
  isLocked: boolean;
  unlockAt: string | null;
  duration: number;
}

interface SectionJson {
  title: string;
  lectures: LectureJson[];
}

/**
 * Floor B: the member API's full syllabus query (test/bench/graphql.bench.ts SYLLABUS_QUERY) by hand. One indexed
 * join finds the token with its site and member; the route checks what the product checks (origin binding,
 * revocation, expiry, a resource owner), then reads the newest enrollments page and the syllabi of its courses
 * with the member's progress in one statement, and answers the same JSON as the product.
 */
export function mountSyllabusFloor(router: Router, db: Knex): void {
  router.post('/floor/syllabus', async (ctx) => {
    const token = /^Bearer (\S+)$/i.exec(ctx.get('authorization'))?.[1] ?? '';
    const pair: Record<string, unknown> | undefined = await db('token_pairs as t')
      .join('sites as s', 's.id', 't.site_id')
      .leftJoin('users as u', 'u.id', 't.user_id')
      .where('t.access_token_hash', sha256(token))
      .first('t.site_id', 't.user_id', 't.resource', 't.revoked_at', 't.access_expires_at', 's.origin', 'u.name');
    const now = Date.now();
    if (!pair || pair.revoked_at !== null || (toDate(pair.access_expires_at)?.getTime() ?? 0) <= now || pair.resource !== pair.origin || pair.user_id === null) {
      ctx.status = 401;
      ctx.body = { error: 'invalid_token' };
      return;
    }
    const userId = Number(pair.user_id);
    const siteId = Number(pair.site_id);

    const courses: CourseRow[] = await db('enrollments as e')
      .join('courses as c', 'c.id', 'e.course_id')
      .where('e.user_id', userId)
      .where('e.site_id', siteId)
      .where('c.site_id', siteId)
      .orderBy([
        { column: 'e.enrolled_at', order: 'desc' },
        { column: 'e.id', order: 'desc' },
      ])
      .limit(PAGE_SIZE + 1)
      .select('e.id', 'e.expires_at', 'e.has_lifetime_access', 'e.last_watched_lecture_id', 'e.last_watched_position_seconds', 'c.id as course_id', 'c.slug');
    // The first page holds every enrollment unless it overflows; only then is a count needed.
    const totalCount =
      courses.length <= PAGE_SIZE
        ? courses.length
        : Number(((await db('enrollments as e').join('courses as c', 'c.id', 'e.course_id').where('e.user_id', userId).where('e.site_id', siteId).where('c.site_id', siteId).count({ total: '*' })) as Array<{ total: number | string }>)[0]?.total ?? 0);
    const page = courses.slice(0, PAGE_SIZE);

    const sectionsByCourse = new Map<number, SectionJson[]>();
    const progressByCourse = new Map<number, { total: number; completed: number }>();
    if (page.length > 0) {
      const rows: SyllabusRow[] = await db('course_sections as s')
        .leftJoin('lectures as l', 'l.section_id', 's.id')
        .leftJoin('lecture_progress as p', (join) => join.on('p.lecture_id', '=', 'l.id').andOnVal('p.user_id', '=', userId))
        .whereIn(
          's.course_id',
          page.map((course) => course.course_id),
        )
        .orderBy([{ column: 's.course_id' }, { column: 's.position' }, { column: 's.id' }, { column: 'l.position' }, { column: 'l.id' }])
        .select('s.id as section_id', 's.course_id', 's.title as section_title', 'l.title as lecture_title', 'l.duration_seconds', 'l.locked', 'l.unlock_at', 'p.state');
      let sectionId = -1;
      let lectures: LectureJson[] = [];
      for (const row of rows) {
        const courseId = Number(row.course_id);
        if (row.section_id !== sectionId) {
          sectionId = row.section_id;
          lectures = [];
          let sections = sectionsByCourse.get(courseId);
          if (!sections) {
            sections = [];
            sectionsByCourse.set(courseId, sections);
            progressByCourse.set(courseId, { total: 0, completed: 0 });
          }
          sections.push({ title: row.section_title, lectures });
        }
        if (row.lecture_title === null) continue;
        const unlockAt = toDate(row.unlock_at);
        const state = row.state === 'read' || row.state === 'completed' ? row.state : 'unread';
        const progress = progressByCourse.get(courseId)!;
        progress.total += 1;
        if (state === 'completed') progress.completed += 1;
        lectures.push({
          title: row.lecture_title,
          state,
          isLocked: Boolean(row.locked) || (unlockAt !== null && unlockAt.getTime() > now),
          unlockAt: dateTime(unlockAt),
          duration: Number(row.duration_seconds ?? 0),
        });
      }
    }

    const name = typeof pair.name === 'string' ? pair.name.trim() : '';
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/json';
    ctx.body = JSON.stringify({
      data: {
        viewer: {
          id: String(userId),
          name: name === '' ? null : name,
          enrolledCourses: {
            totalCount,
            nodes: page.map((course) => {
              const expiresAt = toDate(course.expires_at);
              const lifetime = Boolean(course.has_lifetime_access) || expiresAt === null;
              const progress = progressByCourse.get(Number(course.course_id)) ?? { total: 0, completed: 0 };
              return {
                slug: course.slug,
                expireDate: lifetime ? null : dateTime(expiresAt),
                hasLifetimeAccess: lifetime,
                lastWatchedLecture:
                  course.last_watched_lecture_id === null
                    ? null
                    : { lectureId: Buffer.from(`Lecture:${course.last_watched_lecture_id}`, 'utf8').toString('base64url'), positionSeconds: Number(course.last_watched_position_seconds ?? 0) },
                detailProgress: { completedLecturesCount: progress.completed, totalLecturesCount: progress.total, completionRate: progress.total === 0 ? 0 : progress.completed / progress.total },
                sections: sectionsByCourse.get(Number(course.course_id)) ?? [],
              };
            }),
          },
        },
      },
    });
  });
}
