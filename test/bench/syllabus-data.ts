/**
 * npm run bench (second half): the full syllabus query of the member API for a member with 20 courses × 50 lectures,
 * next to a bare Koa JSON route on the same machine, with the SQL queries each request costs.
 */
import { importSiteDocument } from '../../src/import/import-site.js';
import type { ImportDocument } from '../../src/import/document.js';
import { findUserByEmail } from '../../src/accounts/users.js';
import { createScratchDatabase } from '../support/databases.js';
import { gql, graphqlPath, memberToken } from '../support/member-api.js';
import { startTestServer } from '../support/server.js';
import { bareKoa, run, type Row } from './harness.js';

const COURSES = 20;
const SECTIONS = 5;
const LECTURES_PER_SECTION = 10;

export const SYLLABUS_QUERY = `{
  viewer {
    id name
    enrolledCourses(first: ${COURSES}) {
      totalCount
      nodes {
        slug expireDate hasLifetimeAccess
        lastWatchedLecture { lectureId positionSeconds }
        detailProgress { completedLecturesCount totalLecturesCount completionRate }
        sections { title lectures { title state isLocked unlockAt duration } }
      }
    }
  }
}`;

function document(origin: string, now: Date): ImportDocument {
  const iso = (offsetDays: number) => new Date(now.getTime() + offsetDays * 86400000).toISOString();
  const email = 'bench.member@example.com';
  const courses = Array.from({ length: COURSES }, (_, c) => ({
    externalId: `course-${c}`,
    slug: `course-${c}`,
    title: `Course ${c}`,
    status: 'published' as const,
    sections: Array.from({ length: SECTIONS }, (_, s) => ({
      externalId: `course-${c}-section-${s}`,
      title: `Section ${s}`,
      lectures: Array.from({ length: LECTURES_PER_SECTION }, (_, l) => ({
        externalId: `course-${c}-lecture-${s}-${l}`,
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
    users: [{ email, name: 'Bench Member', password: 'bench-member-password', roles: ['student'] }],
    courses,
    enrollments: courses.map((course, c) => ({
      externalId: `enrollment-${c}`,
      course: course.externalId,
      user: email,
      enrolledAt: iso(-30 + c),
      hasLifetimeAccess: c % 2 === 0,
      expiresAt: c % 2 === 0 ? null : iso(180),
      lastWatched: { lecture: `course-${c}-lecture-0-3`, positionSeconds: 120, at: iso(-1) },
      progress: Array.from({ length: 12 }, (_, l) => ({ lecture: `course-${c}-lecture-${Math.floor(l / LECTURES_PER_SECTION)}-${l % LECTURES_PER_SECTION}`, state: l < 8 ? ('completed' as const) : ('read' as const) })),
    })),
  };
}

export async function graphqlBench(kind: 'sqlite' | 'mysql'): Promise<Row[]> {
  const scratch = await createScratchDatabase(kind);
  const server = await startTestServer(scratch);
  const site = server.siteB;
  await importSiteDocument(scratch.db, document(site.origin, new Date()));
  const user = await findUserByEmail(scratch.db, 'bench.member@example.com');
  if (!user) throw new Error('bench member missing');
  const token = await memberToken(scratch.db, site, user, 'account:read');

  let queries = 0;
  scratch.db.on('query', () => (queries += 1));
  const probe = await gql(site.origin, 'A', token, SYLLABUS_QUERY);
  if (probe.status !== 200 || probe.errors) throw new Error(`syllabus query failed: ${JSON.stringify(probe.errors)}`);
  const queriesPerRequest = queries;

  const bare = await bareKoa();
  const rows: Row[] = [];
  rows.push(await run('bare Koa route (GET /)', { url: bare.url }));
  const syllabus = await run(`full syllabus query (${COURSES} courses × ${SECTIONS * LECTURES_PER_SECTION} lectures)`, {
    url: `${site.origin}${graphqlPath('A')}`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: SYLLABUS_QUERY }),
  });
  rows.push({ ...syllabus, note: `${queriesPerRequest} SQL queries per request` });
  await bare.close();
  await server.stop();
  await scratch.drop();
  return rows;
}
