import { tokenKey } from '../../../src/oauth/tokens/token-keys.js';
import { answer, bearerOf, toDate, type Floor } from './answer.js';
import { siteOf } from './site.js';
import { statementOf } from './statements.js';
import type { Row } from './store.js';

/** The page the bench query asks for (`enrolledCourses(first: 20)`). */
const PAGE_SIZE = 20;

/** RFC 3339, UTC, whole seconds: how the member API spells a DateTime. */
function dateTime(date: Date | null): string | null {
  return date === null ? null : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
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

/** The sections of each course of the page, with their lectures and the member's progress, from the syllabus rows. */
function syllabiOf(rows: Row[], now: number): { sections: Map<number, SectionJson[]>; progress: Map<number, { total: number; completed: number }> } {
  const sections = new Map<number, SectionJson[]>();
  const progress = new Map<number, { total: number; completed: number }>();
  let sectionId = -1;
  let lectures: LectureJson[] = [];
  for (const row of rows) {
    const courseId = Number(row.course_id);
    if (Number(row.section_id) !== sectionId) {
      sectionId = Number(row.section_id);
      lectures = [];
      let ofCourse = sections.get(courseId);
      if (!ofCourse) {
        ofCourse = [];
        sections.set(courseId, ofCourse);
        progress.set(courseId, { total: 0, completed: 0 });
      }
      ofCourse.push({ title: String(row.section_title), lectures });
    }
    if (row.lecture_title === null) continue;
    const unlockAt = toDate(row.unlock_at);
    const state = row.state === 'read' || row.state === 'completed' ? row.state : 'unread';
    const counts = progress.get(courseId) ?? { total: 0, completed: 0 };
    counts.total += 1;
    if (state === 'completed') counts.completed += 1;
    lectures.push({ title: String(row.lecture_title), state, isLocked: Boolean(row.locked) || (unlockAt !== null && unlockAt.getTime() > now), unlockAt: dateTime(unlockAt), duration: Number(row.duration_seconds ?? 0) });
  }
  return { sections, progress };
}

/**
 * Floor B, the member API's full syllabus query (test/bench/syllabus-data.ts SYLLABUS_QUERY) by hand, on the
 * product's statements: the site from a 5 s cache, the token read, the newest enrollments page with its courses,
 * and the syllabi of the page's courses with the member's progress; the route checks what the product checks (the
 * token's site and origin binding, revocation, expiry, a resource owner) and answers the same JSON.
 */
export const syllabusFloor: Floor = async ({ headers, store, book }) => {
  const site = await siteOf(store, book);
  const tokenValues = [tokenKey(bearerOf(headers))];
  const [pair] = await store.all(statementOf(book, 'syllabus.token', tokenValues), tokenValues);
  const now = Date.now();
  if (!site || !pair || pair.site_id !== site.id || pair.resource !== site.origin || pair.revoked_at !== null || (toDate(pair.access_expires_at)?.getTime() ?? 0) <= now || pair.owner__id === null) {
    return answer(401, { errors: [{ message: 'invalid_token' }] });
  }
  const userId = Number(pair.owner__id);
  const siteId = Number(site.id);
  const pageValues = [userId, siteId, siteId, PAGE_SIZE + 1];
  const courses = await store.all(statementOf(book, 'syllabus.enrollments', pageValues), pageValues);
  // The first page holds every enrollment unless it overflows; only then would the product count them (not captured: the bench's member has one page).
  if (courses.length > PAGE_SIZE) throw new Error('the syllabus floor answers a member with one page of courses');
  const syllabusValues = [userId, ...courses.map((course) => Number(course.course_id))];
  const { sections, progress } = courses.length === 0 ? { sections: new Map<number, SectionJson[]>(), progress: new Map<number, { total: number; completed: number }>() } : syllabiOf(await store.all(statementOf(book, 'syllabus.sections', syllabusValues), syllabusValues), now);
  const name = typeof pair.owner__name === 'string' ? pair.owner__name.trim() : '';
  return answer(200, {
    data: {
      viewer: {
        id: String(userId),
        name: name === '' ? null : name,
        enrolledCourses: {
          totalCount: courses.length,
          nodes: courses.map((course) => {
            const expiresAt = toDate(course.expires_at);
            const lifetime = Boolean(course.has_lifetime_access) || expiresAt === null;
            const counts = progress.get(Number(course.course_id)) ?? { total: 0, completed: 0 };
            return {
              slug: course.courses_slug,
              expireDate: lifetime ? null : dateTime(expiresAt),
              hasLifetimeAccess: lifetime,
              lastWatchedLecture:
                course.last_watched_lecture_id === null ? null : { lectureId: Buffer.from(`Lecture:${String(course.last_watched_lecture_id)}`, 'utf8').toString('base64url'), positionSeconds: Number(course.last_watched_position_seconds ?? 0) },
              detailProgress: { completedLecturesCount: counts.completed, totalLecturesCount: counts.total, completionRate: counts.total === 0 ? 0 : counts.completed / counts.total },
              sections: sections.get(Number(course.course_id)) ?? [],
            };
          }),
        },
      },
    },
  });
};
