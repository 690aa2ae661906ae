import { expect } from 'chai';
import { findUserByEmail, type User } from '../src/accounts/users.js';
import type { Variant } from '../src/config/config.js';
import type { Database } from '../src/db/connection.js';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import type { ImportDocument } from '../src/import/document.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { encodeNodeId } from '../src/member/ids.js';
import { RESOURCE_PAGE_SIZE } from '../src/mcp/server.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import { MCP_ERAS, postModern, withMcpClient, type AnyMcpClient, type McpCourse, type McpEra } from './support/mcp-clients.js';
import { gql, memberToken } from './support/member-api.js';
import { discover, exchangeCode, issueCode, makeClient } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * MCP resources at /mcp: which callers see which resources and templates, that each resource holds exactly what the
 * matching tool returns the same caller (and what the member GraphQL API has), `resources/list` paging, completion of
 * template arguments, the cache fields of 2026-07-28 reads, and the errors: 401 and 403 for member resources without a
 * token or scope, the JSON-RPC error for an operator token, -32602 with the URI for anything this school does not have.
 * Both stores, both protocol eras, both variants (the schedule has meetings in variant A only).
 */

const MIA = DEMO_LOGINS.member.email;
const OLIVIA = DEMO_LOGINS.operator.email;
const PAGER = 'pager.member@example.com';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Published courses of the paging school (site B), and how many of them its member is enrolled in. */
const PAGING_COURSES = 60;
const PAGING_ENROLLMENTS = 55;
const iso = (ms: number): string => new Date(ms).toISOString();
const two = (n: number): string => String(n).padStart(2, '0');

// --- what the clients answer ---------------------------------------------------------------------------------------

interface Listed {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

interface Contents {
  uri: string;
  mimeType?: string;
  text?: string;
}

/** The parts of the clients the tests use; both eras' clients have them with these shapes. */
interface ResourceClient {
  listResources(params?: { cursor?: string }): Promise<{ resources: Listed[]; nextCursor?: string }>;
  listResourceTemplates(): Promise<{ resourceTemplates: Array<{ uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string }> }>;
  readResource(params: { uri: string }): Promise<{ contents: Contents[] }>;
  complete(params: { ref: { type: 'ref/resource'; uri: string }; argument: { name: string; value: string } }): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<{ isError?: boolean; structuredContent?: Record<string, unknown>; content: unknown }>;
}

const resourceClient = (client: AnyMcpClient): ResourceClient => client as unknown as ResourceClient;

async function toolJson<T>(client: ResourceClient, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** Every item of a paged tool (`key` names the list in its result), through the tool itself. */
async function everyToolItem<T>(client: ResourceClient, name: string, key: string, args: Record<string, unknown>): Promise<{ items: T[]; totalCount: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page: Record<string, unknown> = await toolJson(client, name, { ...args, ...(cursor === null ? {} : { cursor }) });
    items.push(...(page[key] as T[]));
    const info = page.pageInfo as { hasNextPage: boolean; nextCursor: string | null };
    if (!info.hasNextPage) return { items, totalCount: page.totalCount as number };
    cursor = info.nextCursor;
  }
}

/** A resource's one JSON item, checked to be at its URI with the JSON media type. */
async function resourceJson<T>(client: ResourceClient, uri: string): Promise<T> {
  const { contents } = await client.readResource({ uri });
  expect(contents, uri).to.have.length(1);
  expect(contents[0]?.uri).to.equal(uri);
  expect(contents[0]?.mimeType, `${uri} content`).to.equal('application/json');
  return JSON.parse(contents[0]?.text ?? 'null') as T;
}

async function completions(client: ResourceClient, uriTemplate: string, argument: string, value: string): Promise<{ values: string[]; total?: number; hasMore?: boolean }> {
  return (await client.complete({ ref: { type: 'ref/resource', uri: uriTemplate }, argument: { name: argument, value } })).completion;
}

// --- raw JSON-RPC, for HTTP statuses, the ids of errors and the wire fields ------------------------------------------

interface JsonRpcAnswer {
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** One JSON-RPC request as a client of `era` sends it, without a handshake (the endpoint is stateless). */
async function rawPost(origin: string, era: McpEra, id: number | string, method: string, params: Record<string, unknown>, token?: string): Promise<Response> {
  if (era === '2026-07-28') {
    const name = method === 'resources/read' && typeof params.uri === 'string' ? params.uri : undefined;
    return postModern(origin, id, method, params, { ...(token === undefined ? {} : { token }), ...(name === undefined ? {} : { name }) });
  }
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': era, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
}

async function rawAnswer(origin: string, era: McpEra, id: number | string, method: string, params: Record<string, unknown>, token?: string): Promise<JsonRpcAnswer> {
  const response = await rawPost(origin, era, id, method, params, token);
  expect(response.status, `${method} ${JSON.stringify(params)}`).to.equal(200);
  const answer = (await response.json()) as JsonRpcAnswer;
  expect(answer.id, 'the answer carries the request id').to.equal(id);
  return answer;
}

/** The resources of this school's own data (`school://`), leaving out the interactive views (`ui://`) beside them. */
const schoolUris = (listed: readonly Listed[]): string[] => listed.map((resource) => resource.uri).filter((uri) => uri.startsWith('school://'));

/**
 * Every page of `resources/list` as the wire has them, with the cursors that led to them (raw requests: the 2026-07-28
 * client walks every page itself when asked without a cursor). Every listing names its media type.
 */
async function everyListing(origin: string, era: McpEra, token?: string): Promise<{ pages: Listed[][]; cursors: string[] }> {
  const pages: Listed[][] = [];
  const cursors: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const answer = await rawAnswer(origin, era, `list-${pages.length}`, 'resources/list', cursor === undefined ? {} : { cursor }, token);
    const result = answer.result as { resources: Listed[]; nextCursor?: string } | undefined;
    if (result === undefined) throw new Error(`resources/list failed: ${JSON.stringify(answer.error)}`);
    pages.push(result.resources);
    for (const resource of result.resources) {
      expect(resource.mimeType, `${resource.uri} listing`).to.be.a('string').and.not.equal('');
      if (resource.uri.startsWith('school://')) expect(resource.mimeType, `${resource.uri} listing`).to.equal('application/json');
    }
    if (result.nextCursor === undefined) return { pages, cursors };
    cursors.push(result.nextCursor);
    cursor = result.nextCursor;
  }
}

/** The URI templates of this school's own data. */
const schoolTemplates = (list: { resourceTemplates: Array<{ uriTemplate: string }> }): string[] => list.resourceTemplates.map((template) => template.uriTemplate).filter((uri) => uri.startsWith('school://'));

/** Instances of templates (a course's syllabus) come after every fixed resource. */
function expectFixedFirst(uris: readonly string[]): void {
  const isInstance = (uri: string) => uri.endsWith('/syllabus');
  const firstInstance = uris.findIndex(isInstance);
  if (firstInstance === -1) return;
  expect(uris.slice(firstInstance).filter((uri) => !isInstance(uri)), 'fixed resources first').to.deep.equal([]);
}

/** A read of a URI this school does not have (for this caller): -32602 with the URI in data and the request's id. */
async function expectUnknownResource(origin: string, era: McpEra, id: number, uri: string, token?: string): Promise<string> {
  const answer = await rawAnswer(origin, era, id, 'resources/read', { uri }, token);
  expect(answer.error?.code, `${uri}: ${JSON.stringify(answer)}`).to.equal(-32602);
  expect(answer.error?.data?.uri, uri).to.equal(uri);
  expect(answer.result).to.equal(undefined);
  return answer.error?.message ?? '';
}

// --- test data -------------------------------------------------------------------------------------------------

/** The paging school: more published courses than one resources/list page, and a member enrolled in most of them. */
function pagingDocument(origin: string, now: number): ImportDocument {
  const numbers = Array.from({ length: PAGING_COURSES }, (_, index) => index + 1);
  return {
    formatVersion: 1,
    site: { origin, name: 'Paging School' },
    users: [{ email: PAGER, name: 'Pager Member', roles: ['student'] }],
    courses: [
      ...numbers.map((n) => ({ externalId: `crs-${two(n)}`, slug: `paging-${two(n)}`, title: `Paging Course ${two(n)}`, status: 'published' as const })),
      { externalId: 'crs-draft', slug: 'paging-draft', title: 'Paging Draft', status: 'draft' as const },
    ],
    enrollments: numbers.slice(0, PAGING_ENROLLMENTS).map((n) => ({ externalId: `enr-${two(n)}`, course: `crs-${two(n)}`, user: PAGER, enrolledAt: iso(now - DAY - n * MINUTE), hasLifetimeAccess: true })),
  };
}

interface ScheduleItem {
  kind: 'meeting' | 'event';
  startAt: string;
  endAt: string | null;
  title: string;
  meeting?: Record<string, unknown> & { service: { title: string } | null; studyGroup: { name: string } | null };
  registration?: { state: string; event: { startAt: string; title: string } };
}

const PROGRESS_FIELDS = 'totalLecturesCount completedLecturesCount readLecturesCount unreadLecturesCount completionRate totalDurationSeconds completedDurationSeconds';
const REGISTRATION_FIELDS = 'id state seats ticketName registeredAt event { id slug title description startAt endAt timezone isOnline venue url }';

for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`MCP resources, variant ${variant}`, (scratch) => resourceSuite(variant, scratch));
}

function resourceSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  let server: TestServer;
  let db: Database;
  let origin: string;
  let host: string;
  let pagingOrigin: string;
  let pagingHost: string;
  const tokens = {} as Record<'mia' | 'identity' | 'operator' | 'pager', string>;

  async function userOf(email: string): Promise<User> {
    const user = await findUserByEmail(db, email);
    if (!user) throw new Error(`no user ${email}`);
    return user;
  }

  const at = (path: string, authority = host): string => `school://${authority}${path}`;

  before(async function () {
    this.timeout(120_000);
    db = scratch().db;
    server = await startTestServer(scratch(), { variant });
    origin = server.siteA.origin;
    host = new URL(origin).host;
    pagingOrigin = server.siteB.origin;
    pagingHost = new URL(pagingOrigin).host;
    const now = Date.now();
    await importSiteDocument(db, buildDemoDocument(origin, new Date(now)));
    await importSiteDocument(db, pagingDocument(pagingOrigin, now));
    const mia = await userOf(MIA);
    tokens.mia = await memberToken(db, server.siteA, mia);
    tokens.identity = await memberToken(db, server.siteA, mia, 'openid profile email');
    tokens.pager = await memberToken(db, server.siteB, await userOf(PAGER), 'openid account:read');
    const operatorApp = await makeClient(db, server.siteA, { audience: 'operator', confidential: false, scopes: ['openid', 'courses:read', 'school:read'] });
    const grant = await issueCode(db, server.siteA, operatorApp, await userOf(OLIVIA), 'openid courses:read school:read');
    tokens.operator = ((await (await exchangeCode(await discover(origin), operatorApp, grant)).json()) as { access_token: string }).access_token;
  });

  after(async () => {
    await server?.stop();
  });

  for (const era of MCP_ERAS) {
    describe(`over ${era}`, function () {
      this.timeout(120_000);
      const withClient = <T>(at: string, token: string | undefined, use: (client: ResourceClient) => Promise<T>): Promise<T> => withMcpClient(at, era, token, (client) => use(resourceClient(client)));

      describe('public resources', () => {
        it('lists the profile, the catalogue and one syllabus per published course to anyone, each with its media type, and nothing of a member', async () => {
          const { pages } = await everyListing(origin, era);
          expect(pages).to.have.length(1);
          const listed = pages[0] ?? [];
          await withClient(origin, undefined, async (client) => {
            const slugs = (await everyToolItem<{ slug: string }>(client, 'search_courses', 'courses', { first: 50 })).items.map((course) => course.slug);
            expect(listed.map((resource) => resource.uri), 'public resources only').to.deep.equal([at('/profile'), at('/courses'), ...slugs.map((slug) => at(`/courses/${slug}/syllabus`))]);
            expect(listed.map((resource) => resource.name)).to.deep.equal(['school-profile', 'course-catalogue', ...slugs.map(() => 'course-syllabus')]);
            for (const resource of listed) expect(resource.description, resource.uri).to.be.a('string').and.not.equal('');
            expect((await client.listResources()).resources, "the client's own listing").to.deep.equal(listed);
            const { resourceTemplates } = await client.listResourceTemplates();
            expect(resourceTemplates.map((template) => template.uriTemplate)).to.deep.equal([at('/courses/{slug}/syllabus')]);
            expect(resourceTemplates[0]?.mimeType).to.equal('application/json');
          });
        });

        it('reads the profile, the catalogue and each syllabus as exactly what get_school_profile, search_courses and get_course_syllabus return', async () => {
          await withClient(origin, undefined, async (client) => {
            expect(await resourceJson(client, at('/profile'))).to.deep.equal(await toolJson(client, 'get_school_profile'));
            const catalogue = await everyToolItem<{ slug: string }>(client, 'search_courses', 'courses', { first: 50 });
            expect(await resourceJson(client, at('/courses'))).to.deep.equal({ courses: catalogue.items, totalCount: catalogue.totalCount, truncated: false });
            for (const { slug } of catalogue.items) {
              expect(await resourceJson(client, at(`/courses/${slug}/syllabus`)), slug).to.deep.equal(await toolJson(client, 'get_course_syllabus', { course: slug }));
            }
          });
          // The other school's resources name its own host and hold its own courses.
          await withClient(pagingOrigin, undefined, async (client) => {
            const catalogue = await resourceJson<{ courses: Array<{ slug: string }>; totalCount: number; truncated: boolean }>(client, at('/courses', pagingHost));
            expect(catalogue.totalCount).to.equal(PAGING_COURSES);
            expect(catalogue.truncated).to.equal(false);
            expect(catalogue.courses.map((course) => course.slug)).to.deep.equal(Array.from({ length: PAGING_COURSES }, (_, index) => `paging-${two(index + 1)}`));
            expect(catalogue.courses, 'read page by page through search_courses').to.deep.equal((await everyToolItem(client, 'search_courses', 'courses', { first: 50 })).items);
          });
        });

        it('completes the syllabus template with published slugs that start with what was typed, ignoring case', async () => {
          const template = at('/courses/{slug}/syllabus');
          await withClient(origin, undefined, async (client) => {
            expect((await completions(client, template, 'slug', 'f')).values).to.deep.equal(['foundations-of-typography']);
            expect((await completions(client, template, 'slug', 'FOUND')).values).to.deep.equal(['foundations-of-typography']);
            expect((await completions(client, template, 'slug', '')).values, 'published only, by slug').to.deep.equal(['color-theory-studio', 'design-systems-for-product-teams', 'foundations-of-typography', 'prototyping-in-figma']);
            expect((await completions(client, template, 'slug', 'portfolio')).values, 'not the draft').to.deep.equal([]);
            expect((await completions(client, template, 'slug', '%')).values, 'LIKE wildcards are literal').to.deep.equal([]);
            expect((await completions(client, template, 'slug', '_')).values).to.deep.equal([]);
            expect((await completions(client, template, 'course', 'f')).values, 'no such argument').to.deep.equal([]);
            expect((await completions(client, at('/courses/{slug}/syllabus', pagingHost), 'slug', 'f')).values, "another school's template").to.deep.equal([]);
          });
          await withClient(pagingOrigin, undefined, async (client) => {
            const all = await completions(client, at('/courses/{slug}/syllabus', pagingHost), 'slug', 'paging-');
            expect(all.values).to.have.length(PAGING_COURSES);
            expect(all.hasMore).to.equal(false);
          });
        });
      });

      describe('member resources', () => {
        it('answers an anonymous read or completion of a member resource with HTTP 401 and the challenge that starts OAuth', async () => {
          const requests: Array<[string, Record<string, unknown>]> = [
            ['resources/read', { uri: at('/me/courses') }],
            ['resources/read', { uri: at('/me/schedule') }],
            ['resources/read', { uri: at('/me/courses/foundations-of-typography/syllabus') }],
            ['completion/complete', { ref: { type: 'ref/resource', uri: at('/me/courses/{slug}/syllabus') }, argument: { name: 'slug', value: '' } }],
          ];
          for (const [index, [method, params]] of requests.entries()) {
            const response = await rawPost(origin, era, index + 1, method, params);
            expect(response.status, JSON.stringify(params)).to.equal(401);
            expect(response.headers.get('www-authenticate')).to.equal(`Bearer realm="${origin}", resource_metadata="${origin}/.well-known/oauth-protected-resource", scope="account:read"`);
            const body = (await response.json()) as JsonRpcAnswer;
            expect(body.id).to.equal(index + 1);
            expect(body.error?.message).to.include(`${origin}/auth.md`);
          }
          await withClient(origin, undefined, async (client) => {
            const refused = await client.readResource({ uri: at('/me/courses') }).then(
              () => null,
              (error: unknown) => error,
            );
            expect(refused, 'the client sees the refusal').to.be.instanceOf(Error);
          });
        });

        it('answers a member token without account:read with HTTP 403 insufficient_scope (step-up), and lists the member resources to it without instances', async () => {
          for (const [index, uri] of [at('/me/courses'), at('/me/schedule'), at('/me/courses/foundations-of-typography/syllabus')].entries()) {
            const response = await rawPost(origin, era, index + 1, 'resources/read', { uri }, tokens.identity);
            expect(response.status, uri).to.equal(403);
            const challenge = response.headers.get('www-authenticate') ?? '';
            expect(challenge).to.match(/^Bearer /);
            expect(challenge).to.include('error="insufficient_scope"');
            expect(challenge).to.include('scope="account:read"');
            expect(challenge).to.include(`resource_metadata="${origin}/.well-known/oauth-protected-resource"`);
            const body = (await response.json()) as { error: string; error_description: string };
            expect(body.error).to.equal('insufficient_scope');
            expect(body.error_description).to.include(`resource ${uri}`).and.to.include('authorize again');
          }
          const uris = schoolUris((await everyListing(origin, era, tokens.identity)).pages.flat());
          expect(uris.slice(0, 4)).to.deep.equal([at('/profile'), at('/courses'), at('/me/courses'), at('/me/schedule')]);
          expect(uris.filter((uri) => uri.includes('/me/courses/')), 'no instances before the scope is granted').to.deep.equal([]);
          await withClient(origin, tokens.identity, async (client) => {
            expect(schoolTemplates(await client.listResourceTemplates())).to.deep.equal([at('/courses/{slug}/syllabus'), at('/me/courses/{slug}/syllabus')]);
          });
        });

        it('answers an operator token reading a member resource with the JSON-RPC error insufficient_scope (no step-up can help), and lists it public resources only', async () => {
          const answer = await rawAnswer(origin, era, 'op-1', 'resources/read', { uri: at('/me/courses') }, tokens.operator);
          expect(answer.error?.code).to.equal(-32600);
          expect(answer.error?.data).to.deep.equal({ uri: at('/me/courses'), error: 'insufficient_scope', scope: 'account:read' });
          expect(answer.error?.message).to.include('operator token');
          const uris = (await everyListing(origin, era, tokens.operator)).pages.flat().map((resource) => resource.uri);
          expect(uris.filter((uri) => uri.includes('/me/'))).to.deep.equal([]);
          expect(uris.filter((uri) => !uri.startsWith('school://')), 'no member views either').to.deep.equal([]);
          await withClient(origin, tokens.operator, async (client) => {
            expect(schoolTemplates(await client.listResourceTemplates())).to.deep.equal([at('/courses/{slug}/syllabus')]);
            expect(await resourceJson(client, at('/profile'))).to.have.property('name');
          });
        });

        it("lists the member's own resources and one syllabus per enrolled course, and reads my courses as every page of list_my_courses and as GraphQL has them", async () => {
          await withClient(origin, tokens.mia, async (client) => {
            const mine = await everyToolItem<McpCourse>(client, 'list_my_courses', 'courses', { first: 100 });
            const all = (await everyListing(origin, era, tokens.mia)).pages.flat();
            const listed = all.map((resource) => resource.uri);
            expectFixedFirst(listed);
            expect(new Set(listed).size).to.equal(listed.length);
            const uris = schoolUris(all);
            expect(uris.slice(0, 4)).to.deep.equal([at('/profile'), at('/courses'), at('/me/courses'), at('/me/schedule')]);
            expect(uris.filter((uri) => uri.startsWith(at('/me/courses/')))).to.deep.equal(mine.items.map((course) => at(`/me/courses/${course.slug}/syllabus`)));
            const courses = await resourceJson<{ courses: McpCourse[]; totalCount: number; truncated: boolean }>(client, at('/me/courses'));
            expect(courses).to.deep.equal({ courses: mine.items, totalCount: mine.totalCount, truncated: false });
            expect(courses.totalCount).to.equal(3);

            const graph = await gql<{ viewer: { enrolledCourses: { nodes: Array<Record<string, unknown>> } } }>(
              origin,
              variant,
              tokens.mia,
              `{ viewer { enrolledCourses(first: 50) { nodes { id slug title expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } detailProgress { ${PROGRESS_FIELDS} } } } } }`,
            );
            expect(courses.courses.map((course) => ({ id: course.id, slug: course.slug, title: course.title, expireDate: course.expireDate, hasLifetimeAccess: course.hasLifetimeAccess, lastWatchedLecture: course.lastWatchedLecture, detailProgress: course.progress }))).to.deep.equal(
              graph.data?.viewer.enrolledCourses.nodes,
            );
          });
        });

        it("reads each of the member's course syllabi as get_my_course_syllabus returns it, and completes the template with the member's own slugs", async () => {
          await withClient(origin, tokens.mia, async (client) => {
            const mine = (await everyToolItem<McpCourse>(client, 'list_my_courses', 'courses', { first: 100 })).items;
            for (const { slug } of mine) {
              const syllabus = await resourceJson<{ course: { slug: string }; sections: unknown[] }>(client, at(`/me/courses/${slug}/syllabus`));
              expect(syllabus, slug).to.deep.equal(await toolJson(client, 'get_my_course_syllabus', { course: slug }));
              expect(syllabus.sections.length, slug).to.be.above(0);
            }
            const template = at('/me/courses/{slug}/syllabus');
            expect((await completions(client, template, 'slug', '')).values, 'newest enrollment first').to.deep.equal(mine.map((course) => course.slug));
            expect((await completions(client, template, 'slug', 'Found')).values).to.deep.equal(['foundations-of-typography']);
            expect((await completions(client, template, 'slug', 'prototyping')).values, 'a published course the member does not have').to.deep.equal([]);
          });
        });

        it('reads my schedule: the upcoming meetings as list_my_meetings gives them (variant A only) and the upcoming registered events as GraphQL has them, soonest first', async () => {
          await withClient(origin, tokens.mia, async (client) => {
            const schedule = await resourceJson<{ items: ScheduleItem[]; truncated: boolean }>(client, at('/me/schedule'));
            expect(schedule.truncated).to.equal(false);
            const starts = schedule.items.map((item) => Date.parse(item.startAt));
            expect(starts, 'soonest first').to.deep.equal([...starts].sort((a, b) => a - b));
            const now = Date.now();
            for (const item of schedule.items) expect(Date.parse(item.startAt), item.title).to.be.above(now - 5 * MINUTE);

            const meetings = schedule.items.filter((item) => item.kind === 'meeting');
            if (variant === 'A') {
              const upcoming = await everyToolItem<Record<string, unknown>>(client, 'list_my_meetings', 'meetings', { when: 'upcoming', first: 50 });
              expect(upcoming.items.length, 'the demo member has upcoming meetings').to.be.above(0);
              expect(meetings.map((item) => item.meeting)).to.deep.equal(upcoming.items);
              for (const item of meetings) expect(item.title).to.equal(item.meeting?.service?.title ?? item.meeting?.studyGroup?.name);
            } else {
              expect(meetings, 'variant B has no meetings').to.deep.equal([]);
            }

            const events = schedule.items.filter((item) => item.kind === 'event');
            const graph = await gql<{ viewer: { eventRegistrations: { nodes: Array<{ state: string; event: { startAt: string } }> } } }>(origin, variant, tokens.mia, `{ viewer { eventRegistrations(first: 100) { nodes { ${REGISTRATION_FIELDS} } } } }`);
            const registered = (graph.data?.viewer.eventRegistrations.nodes ?? []).filter((node) => node.state !== 'CANCELED' && Date.parse(node.event.startAt) > now).reverse();
            expect(events.map((item) => item.registration)).to.deep.equal(registered);
            expect(events.map((item) => item.title)).to.deep.equal(['Design Systems Meetup Taipei']);
          });
        });

        it('answers -32602 with the URI for a course the member is not enrolled in, and a /me/ URI can name no other member', async () => {
          const enrolledSomewhereElse = at('/me/courses/paging-01/syllabus');
          const uris = [
            at('/me/courses/prototyping-in-figma/syllabus'),
            at('/me/courses/portfolio-review-bootcamp/syllabus'),
            at('/me/courses/no-such-course/syllabus'),
            at(`/me/courses/${encodeNodeId('Course', 1)}/syllabus`),
            enrolledSomewhereElse,
            at('/users/1/courses'),
            at('/me/1/courses'),
            at('/members/pager.member@example.com/schedule'),
            at('/me/courses', pagingHost),
          ];
          for (const [index, uri] of uris.entries()) {
            const message = await expectUnknownResource(origin, era, 100 + index, uri, tokens.mia);
            expect(message, uri).to.include(uri);
          }
        });
      });

      describe('unknown resources', () => {
        it('answers -32602 with the URI and the request id for another school, a malformed URI, a query, a fragment or an unknown path', async () => {
          const uris = [
            at('/profile', pagingHost),
            at('/courses/paging-01/syllabus', pagingHost),
            'school://other.example/profile',
            `${origin}/profile`,
            `ui://${host}/profile`,
            'not a uri',
            '',
            `school://${host}`,
            at('/profile?x=1'),
            at('/courses?first=5'),
            at('/profile#top'),
            at('/profile/'),
            at('//profile'),
            at('/Profile'),
            at('/nothing-here'),
            at('/courses/no-such-course/syllabus'),
            at('/courses/portfolio-review-bootcamp/syllabus'),
            at(`/courses/${encodeNodeId('Course', 1)}/syllabus`),
            at('/courses//syllabus'),
            at('/courses/%E0%A4%A/syllabus'),
            at(`/courses/${'x'.repeat(300)}/syllabus`),
            at('/courses/foundations-of-typography/syllabus/extra'),
          ];
          for (const [index, uri] of uris.entries()) await expectUnknownResource(origin, era, 200 + index, uri);
          const otherSchool = await expectUnknownResource(origin, era, 300, at('/profile', pagingHost));
          expect(otherSchool).to.include(`the host ${pagingHost}`).and.to.include(`the school at ${host}`);
          await withClient(origin, undefined, async (client) => {
            const failure = await client.readResource({ uri: at('/nothing-here') }).then(
              () => null,
              (error: unknown) => error as { code?: unknown },
            );
            expect(failure?.code, 'the client sees -32602').to.equal(-32602);
          });
        });
      });

      describe('resources/list paging', () => {
        it('pages more than one page of instances with an opaque, stable cursor, fixed resources first', async () => {
          const publicSyllabi = Array.from({ length: PAGING_COURSES }, (_, index) => at(`/courses/paging-${two(index + 1)}/syllabus`, pagingHost));
          const anonymous = await everyListing(pagingOrigin, era);
          expect(anonymous.pages.map((page) => page.length)).to.deep.equal([RESOURCE_PAGE_SIZE, 2 + PAGING_COURSES - RESOURCE_PAGE_SIZE]);
          expect(anonymous.pages.flat().map((resource) => resource.uri)).to.deep.equal([at('/profile', pagingHost), at('/courses', pagingHost), ...publicSyllabi]);
          for (const cursor of anonymous.cursors) expect(cursor, 'opaque').to.match(/^[A-Za-z0-9_-]+$/).and.not.include('paging');
          for (const [index, cursor] of anonymous.cursors.entries()) {
            expect((await rawAnswer(pagingOrigin, era, `again-${index}`, 'resources/list', { cursor })).result?.resources, 'the same cursor gives the same page').to.deep.equal(anonymous.pages[index + 1]);
          }

          const { pages, cursors } = await everyListing(pagingOrigin, era, tokens.pager);
          const listed = pages.flat().map((resource) => resource.uri);
          expect(pages.slice(0, -1).map((page) => page.length), 'full pages but the last').to.deep.equal(pages.slice(0, -1).map(() => RESOURCE_PAGE_SIZE));
          expect(pages.length).to.equal(Math.ceil(listed.length / RESOURCE_PAGE_SIZE));
          expect(new Set(listed).size, 'no resource twice').to.equal(listed.length);
          expectFixedFirst(listed);
          const uris = schoolUris(pages.flat());
          expect(uris.length).to.equal(4 + PAGING_COURSES + PAGING_ENROLLMENTS);
          expect(uris.slice(0, 4)).to.deep.equal([at('/profile', pagingHost), at('/courses', pagingHost), at('/me/courses', pagingHost), at('/me/schedule', pagingHost)]);
          expect(uris.filter((uri) => uri.startsWith(at('/courses/', pagingHost)))).to.deep.equal(publicSyllabi);
          // Newest enrollment first: course 01 was enrolled last.
          expect(uris.filter((uri) => uri.includes('/me/courses/'))).to.deep.equal(Array.from({ length: PAGING_ENROLLMENTS }, (_, index) => at(`/me/courses/paging-${two(index + 1)}/syllabus`, pagingHost)));
          for (const [index, cursor] of cursors.entries()) {
            expect((await rawAnswer(pagingOrigin, era, `again-${index}`, 'resources/list', { cursor }, tokens.pager)).result?.resources, `page ${index + 2} again`).to.deep.equal(pages[index + 1]);
          }
          await withClient(pagingOrigin, tokens.pager, async (client) => {

            const courses = await resourceJson<{ courses: McpCourse[]; totalCount: number; truncated: boolean }>(client, at('/me/courses', pagingHost));
            expect(courses.totalCount).to.equal(PAGING_ENROLLMENTS);
            expect(courses.courses, 'every page of list_my_courses').to.deep.equal((await everyToolItem(client, 'list_my_courses', 'courses', { first: 20 })).items);
            expect((await completions(client, at('/me/courses/{slug}/syllabus', pagingHost), 'slug', 'paging-0')).values).to.deep.equal(Array.from({ length: 9 }, (_, index) => `paging-0${index + 1}`));
          });
        });

        it('answers a cursor it did not give with -32602 and the request id', async () => {
          const forged = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
          const bad = ['not a cursor!', '', forged([-1, null]), forged([0.5, null]), forged({ index: 1 }), forged([2, 'not-a-keyset-cursor']), forged([2, forged(['x', 'y'])]), 'x'.repeat(5000)];
          for (const [index, cursor] of bad.entries()) {
            const answer = await rawAnswer(pagingOrigin, era, `cursor-${index}`, 'resources/list', { cursor });
            expect(answer.error?.code, `${cursor.slice(0, 40)}: ${JSON.stringify(answer)}`).to.equal(-32602);
          }
        });
      });

      describe('cache fields', () => {
        if (era === '2026-07-28') {
          it('says on each read how long it may be reused and by whom: public resources public, member ones private and not at all', async () => {
            const cases: Array<[string, string | undefined, number, string]> = [
              [at('/profile'), undefined, 5 * MINUTE, 'public'],
              [at('/courses'), undefined, MINUTE, 'public'],
              [at('/courses/foundations-of-typography/syllabus'), undefined, MINUTE, 'public'],
              [at('/me/courses'), tokens.mia, 0, 'private'],
              [at('/me/courses/foundations-of-typography/syllabus'), tokens.mia, 0, 'private'],
              [at('/me/schedule'), tokens.mia, 0, 'private'],
            ];
            for (const [index, [uri, token, ttlMs, cacheScope]] of cases.entries()) {
              const answer = await rawAnswer(origin, era, index + 1, 'resources/read', { uri }, token);
              expect(answer.result, uri).to.include({ ttlMs, cacheScope });
              const contents = answer.result?.contents as Contents[];
              expect(contents[0]?.mimeType).to.equal('application/json');
            }
          });
        } else {
          it('adds no cache fields to 2025-era reads, also when the request carries stray envelope keys', async () => {
            for (const [index, params] of [{ uri: at('/profile') }, { uri: at('/profile'), _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'stray', version: '1' } } }].entries()) {
              const answer = await rawAnswer(origin, era, index + 1, 'resources/read', params);
              expect(answer.result, JSON.stringify(params)).to.have.property('contents');
              expect(answer.result).not.to.have.any.keys('ttlMs', 'cacheScope', 'resultType');
            }
            const member = await rawAnswer(origin, era, 3, 'resources/read', { uri: at('/me/courses') }, tokens.mia);
            expect(member.result).not.to.have.any.keys('ttlMs', 'cacheScope', 'resultType');
          });
        }
      });
    });
  }
}
