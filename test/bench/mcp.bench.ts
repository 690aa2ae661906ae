/**
 * npm run bench, MCP: the member tools `list_my_courses` and `get_my_course_syllabus` at /mcp next to the same data
 * fetched through the product's own member GraphQL API in the same run (the "floor" here is GraphQL, on the product's
 * server, not a hand-written route), on both protocol eras: a 2025-era `tools/call` (no envelope) and a 2026-07-28
 * one (the `_meta` envelope and the `Mcp-Method`/`Mcp-Name` headers). And a `resources/read` of the syllabus resource
 * next to the tool that returns the same JSON. A member with 20 courses × 5 sections × 10 lectures, enrolled with
 * progress; each MCP request is stateless, with the usual `Accept: application/json, text/event-stream` (so answered
 * as one JSON body). Before timing, `same` checks both answers carry the same data, mapped to one shape.
 */
import { expect } from 'chai';
import { findUserByEmail } from '../../src/accounts/users.js';
import { importSiteDocument } from '../../src/import/import-site.js';
import { encodeNodeId } from '../../src/member/ids.js';
import { type McpCourse, type McpEra, MODERN_META, modernHeaders } from '../support/mcp-clients.js';
import { graphqlPath, memberToken } from '../support/member-api.js';
import type { BenchContext, Comparison, Target } from './harness.js';
import { COURSES, LECTURES_PER_SECTION, SECTIONS, syllabusDocument, type BenchMember } from './syllabus-data.js';

/** Its own member, external ids and slugs, so the syllabus bench may seed its member into the same school. */
const MCP_MEMBER: BenchMember = { prefix: 'mcp-bench-', email: 'mcp.bench.member@example.com', name: 'MCP Bench Member' };

const PROGRESS_FIELDS = 'totalLecturesCount completedLecturesCount readLecturesCount unreadLecturesCount completionRate totalDurationSeconds completedDurationSeconds';
const COURSE_FIELDS = `id slug title hasLifetimeAccess expireDate lastWatchedLecture { lectureId positionSeconds } detailProgress { ${PROGRESS_FIELDS} }`;

/** What list_my_courses returns, as GraphQL: the first page of enrolled courses with progress and resume point. */
const COURSES_QUERY = `{ viewer { enrolledCourses(first: ${COURSES}) { totalCount pageInfo { hasNextPage } nodes { ${COURSE_FIELDS} } } } }`;
/** What get_my_course_syllabus returns for the newest enrollment, as GraphQL: that course's full syllabus. */
const SYLLABUS_QUERY = `{ viewer { enrolledCourses(first: 1) { nodes { ${COURSE_FIELDS} sections { id title position lectures { id title position state isLocked unlockAt duration } } } } } }`;

type Progress = Record<string, number>;
type Resume = { lectureId: string; positionSeconds: number } | null;

interface GqlCourse {
  id: string;
  slug: string;
  title: string;
  hasLifetimeAccess: boolean;
  expireDate: string | null;
  lastWatchedLecture: Resume;
  detailProgress: Progress;
  sections?: Array<{ id: string; title: string; position: number; lectures: Array<{ id: string; title: string; position: number; state: string; isLocked: boolean; unlockAt: string | null; duration: number }> }>;
}

interface GqlAnswer {
  data?: { viewer: { enrolledCourses: { totalCount?: number; pageInfo?: { hasNextPage: boolean }; nodes: GqlCourse[] } } };
  errors?: unknown[];
}

interface McpSyllabus {
  course: Omit<McpCourse, 'progress' | 'lastWatchedLecture'>;
  progress: Progress;
  resumeAt: { lectureId: string; positionSeconds: number } | null;
  sections: Array<{ id: string; title: string; position: number; lectures: Array<{ id: string; title: string; position: number; state: string; isLocked: boolean; unlockAt: string | null; durationSeconds: number }> }>;
}

/** The structuredContent of a JSON-RPC tools/call answer, checked: a result (not an error) whose text is the same JSON. */
function structuredContentOf<T>(answer: unknown): T {
  const { result } = answer as { result?: { isError?: boolean; structuredContent?: unknown; content?: Array<{ type: string; text?: string }> } };
  if (!result || result.isError || result.structuredContent === undefined) throw new Error(`the MCP answer is not a tool result: ${JSON.stringify(answer).slice(0, 600)}`);
  expect(JSON.parse(result.content?.[0]?.text ?? 'null'), 'the text content carries the same JSON').to.deep.equal(result.structuredContent);
  return result.structuredContent as T;
}

/** The JSON of a resources/read answer's one text content. */
function resourceJsonOf(answer: unknown): unknown {
  const { result } = answer as { result?: { contents?: Array<{ mimeType?: string; text?: string }> } };
  const [content] = result?.contents ?? [];
  if (content?.mimeType !== 'application/json' || content.text === undefined) throw new Error(`the MCP answer is not a JSON resource: ${JSON.stringify(answer).slice(0, 600)}`);
  return JSON.parse(content.text) as unknown;
}

function graphqlCoursesOf(answer: unknown): { totalCount?: number; hasNextPage?: boolean; nodes: GqlCourse[] } {
  const { data, errors } = answer as GqlAnswer;
  if (!data || errors) throw new Error(`the GraphQL answer has errors: ${JSON.stringify(errors).slice(0, 600)}`);
  const { totalCount, pageInfo, nodes } = data.viewer.enrolledCourses;
  return { totalCount, hasNextPage: pageInfo?.hasNextPage, nodes };
}

const courseShape = (course: { id: string; slug: string; title: string; hasLifetimeAccess: boolean; expireDate: string | null }, progress: Progress, resume: Resume) => ({
  id: course.id,
  slug: course.slug,
  title: course.title,
  hasLifetimeAccess: course.hasLifetimeAccess,
  expireDate: course.expireDate,
  progress,
  resume,
});

function sameCourseList(product: unknown, floor: unknown): void {
  const mcp = structuredContentOf<{ courses: McpCourse[]; pageInfo: { hasNextPage: boolean }; totalCount: number }>(product);
  const graph = graphqlCoursesOf(floor);
  expect(mcp.courses).to.have.length(COURSES);
  expect({ totalCount: mcp.totalCount, hasNextPage: mcp.pageInfo.hasNextPage, courses: mcp.courses.map((course) => courseShape(course, course.progress, course.lastWatchedLecture)) }).to.deep.equal({
    totalCount: graph.totalCount,
    hasNextPage: graph.hasNextPage,
    courses: graph.nodes.map((course) => courseShape(course, course.detailProgress, course.lastWatchedLecture)),
  });
}

function sameSyllabus(product: unknown, floor: unknown): void {
  const mcp = structuredContentOf<McpSyllabus>(product);
  const [course] = graphqlCoursesOf(floor).nodes;
  if (!course) throw new Error('GraphQL has no course');
  expect(mcp.sections.flatMap((section) => section.lectures)).to.have.length(SECTIONS * LECTURES_PER_SECTION);
  const resume = mcp.resumeAt === null ? null : { lectureId: mcp.resumeAt.lectureId, positionSeconds: mcp.resumeAt.positionSeconds };
  expect({
    ...courseShape(mcp.course, mcp.progress, resume),
    sections: mcp.sections.map((section) => ({ ...section, lectures: section.lectures.map(({ durationSeconds, ...lecture }) => ({ ...lecture, duration: durationSeconds })) })),
  }).to.deep.equal({
    ...courseShape(course, course.detailProgress, course.lastWatchedLecture),
    sections: (course.sections ?? []).map((section) => ({ ...section, lectures: section.lectures.map((lecture) => ({ ...lecture, kind: 'video' })) })),
  });
}

export async function mcpComparisons(context: BenchContext): Promise<Comparison[]> {
  const { db, site, productUrl, variant } = context;
  await importSiteDocument(db, syllabusDocument(site.origin, new Date(), MCP_MEMBER));
  const user = await findUserByEmail(db, MCP_MEMBER.email);
  if (!user) throw new Error('the MCP bench member was not imported');
  const token = await memberToken(db, site, user, 'openid account:read');
  // The newest enrollment is the first course of the list (enrollments are newest first).
  const newest = (await db('courses').where({ site_id: site.id, slug: `${MCP_MEMBER.prefix}course-${COURSES - 1}` }).first('id')) as { id: number | string } | undefined;
  if (!newest) throw new Error('the MCP bench courses were not imported');
  const newestCourseId = encodeNodeId('Course', Number(newest.id));

  const newestSlug = `${MCP_MEMBER.prefix}course-${COURSES - 1}`;

  const mcpRequest = (era: McpEra, method: string, name: string, params: Record<string, unknown>): Target => ({
    url: `${productUrl}/mcp`,
    method: 'POST',
    headers:
      era === '2026-07-28'
        ? { ...modernHeaders(method, name, token) }
        : { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: era === '2026-07-28' ? { ...params, _meta: MODERN_META } : params }),
  });
  const toolCall = (name: string, args: Record<string, unknown>, era: McpEra = '2025-11-25'): Target => mcpRequest(era, 'tools/call', name, { name, arguments: args });
  const syllabusUri = `school://${new URL(site.origin).host}/me/courses/${newestSlug}/syllabus`;
  const graphql = (query: string): Target => ({
    url: `${productUrl}${graphqlPath(variant)}`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  const modern = '2026-07-28';
  return [
    { name: 'mcp list_my_courses', floorName: 'member GraphQL, same fields', product: toolCall('list_my_courses', { first: COURSES }), floor: graphql(COURSES_QUERY), same: sameCourseList },
    { name: 'mcp list_my_courses 2026-07-28', floorName: 'member GraphQL, same fields', product: toolCall('list_my_courses', { first: COURSES }, modern), floor: graphql(COURSES_QUERY), same: sameCourseList },
    { name: 'mcp get_my_course_syllabus', floorName: 'member GraphQL, one course syllabus', product: toolCall('get_my_course_syllabus', { course: newestCourseId }), floor: graphql(SYLLABUS_QUERY), same: sameSyllabus },
    {
      name: 'mcp get_my_course_syllabus 2026-07-28',
      floorName: 'member GraphQL, one course syllabus',
      product: toolCall('get_my_course_syllabus', { course: newestCourseId }, modern),
      floor: graphql(SYLLABUS_QUERY),
      same: sameSyllabus,
    },
    {
      name: 'mcp resources/read my course syllabus 2026-07-28',
      floorName: 'the get_my_course_syllabus tool, 2026-07-28',
      product: mcpRequest(modern, 'resources/read', syllabusUri, { uri: syllabusUri }),
      floor: toolCall('get_my_course_syllabus', { course: newestSlug }, modern),
      same: (product, floor) => expect(resourceJsonOf(product)).to.deep.equal(structuredContentOf(floor)),
    },
  ];
}
