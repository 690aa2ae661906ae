/** The member API's bench data: the full syllabus query for a member with 20 courses × 50 lectures, and that member's school. */
import type { ImportDocument } from '../../src/import/document.js';

export const BENCH_MEMBER_EMAIL = 'bench.member@example.com';

export const COURSES = 20;
export const SECTIONS = 5;
export const LECTURES_PER_SECTION = 10;

/** What the syllabus asks of each enrolled course (the bench member's and the scale bench's big member's). */
export const SYLLABUS_COURSE_SELECTION = `nodes {
        slug expireDate hasLifetimeAccess
        lastWatchedLecture { lectureId positionSeconds }
        detailProgress { completedLecturesCount totalLecturesCount completionRate }
        sections { title lectures { title state isLocked unlockAt duration } }
      }`;

export const SYLLABUS_QUERY = `{
  viewer {
    id name
    enrolledCourses(first: ${COURSES}) {
      totalCount
      ${SYLLABUS_COURSE_SELECTION}
    }
  }
}`;

/** Who the document enrolls; `prefix` keeps the external ids and slugs of two bench members in one school apart. */
export interface BenchMember {
  prefix: string;
  email: string;
  name: string;
}

export const BENCH_MEMBER: BenchMember = { prefix: '', email: BENCH_MEMBER_EMAIL, name: 'Bench Member' };

/** The bench member's school: COURSES courses of SECTIONS × LECTURES_PER_SECTION lectures, enrolled with progress. */
export function syllabusDocument(origin: string, now: Date, member: BenchMember = BENCH_MEMBER): ImportDocument {
  const iso = (offsetDays: number) => new Date(now.getTime() + offsetDays * 86400000).toISOString();
  const { prefix, email } = member;
  const courses = Array.from({ length: COURSES }, (_, c) => ({
    externalId: `${prefix}course-${c}`,
    slug: `${prefix}course-${c}`,
    title: `Course ${c}`,
    status: 'published' as const,
    sections: Array.from({ length: SECTIONS }, (_, s) => ({
      externalId: `${prefix}course-${c}-section-${s}`,
      title: `Section ${s}`,
      lectures: Array.from({ length: LECTURES_PER_SECTION }, (_, l) => ({
        externalId: `${prefix}course-${c}-lecture-${s}-${l}`,
        title: `Lecture ${s}.${l}`,
        kind: 'video' as const,
        durationSeconds: 300 + l * 30,
        ...(l === LECTURES_PER_SECTION - 1 ? { unlockAt: iso(7) } : {}),
      })),
    })),
  }));
  return {
    formatVersion: 1,
    site: { origin, name: 'Bench School' },
    users: [{ email, name: member.name, password: 'bench-member-password', roles: ['student'] }],
    courses,
    enrollments: courses.map((course, c) => ({
      externalId: `${prefix}enrollment-${c}`,
      course: course.externalId,
      user: email,
      enrolledAt: iso(-30 + c),
      hasLifetimeAccess: c % 2 === 0,
      expiresAt: c % 2 === 0 ? null : iso(180),
      lastWatched: { lecture: `${prefix}course-${c}-lecture-0-3`, positionSeconds: 120, at: iso(-1) },
      progress: Array.from({ length: 12 }, (_, l) => ({ lecture: `${prefix}course-${c}-lecture-${Math.floor(l / LECTURES_PER_SECTION)}-${l % LECTURES_PER_SECTION}`, state: l < 8 ? ('completed' as const) : ('read' as const) })),
    })),
  };
}
