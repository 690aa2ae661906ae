import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { findUserByEmail, type User } from '../../src/accounts/users.js';
import type { Variant } from '../../src/config/config.js';
import type { Database } from '../../src/db/connection.js';
import { buildDemoDocument, DEMO_LOGINS } from '../../src/demo/demo-school.js';
import type { ImportDocument } from '../../src/import/document.js';
import { importSiteDocument } from '../../src/import/import-site.js';
import type { ScratchDatabase } from './databases.js';
import { gql, memberToken, type GraphQLResult } from './member-api.js';
import { discover, exchangeCode, issueCode, makeClient, type TestClient } from './oauth-fixtures.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * The school the /mcp tests talk to (spec: Authentication 8-9 and the /mcp rows of Errors), through the SDK's own
 * Client and StreamableHTTPClientTransport: the demo school at site A with catalogue edge cases, Mia at site B too,
 * and a token for every kind of caller. `useMcpSchool` declares the server's start and stop around the suite.
 */

export const PUBLIC_TOOLS = ['get_school_profile', 'search_courses', 'get_course_syllabus', 'list_upcoming_events', 'list_consulting_services'];
export const MEMBER_READ_TOOLS: Record<Variant, string[]> = {
  A: ['list_my_courses', 'get_my_course_syllabus', 'list_my_meetings', 'list_my_payments', 'list_my_notifications'],
  B: ['list_my_courses', 'get_my_course_syllabus'],
};
export const MEMBER_WRITE_TOOLS: Record<Variant, string[]> = { A: ['mark_notification_read', 'mark_all_notifications_read'], B: [] };

const MIA = DEMO_LOGINS.member.email;
const OLIVIA = DEMO_LOGINS.operator.email;
const READER = 'reader.member@example.com';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number): string => new Date(ms).toISOString();

// --- the SDK client ------------------------------------------------------------------------------------------------

export async function connect(origin: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'schoolgate-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), token === undefined ? undefined : { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

export async function withClient<T>(origin: string, token: string | undefined, use: (client: Client) => Promise<T>): Promise<T> {
  const client = await connect(origin, token);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

export async function toolNames(origin: string, token?: string): Promise<string[]> {
  return withClient(origin, token, async (client) => (await client.listTools()).tools.map((tool) => tool.name).sort());
}

export function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const first = (result.content as Array<{ type: string; text?: string }>)[0];
  return first?.text ?? '';
}

export async function call<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  expect(JSON.parse(textOf(result)), 'the text content carries the same JSON').to.deep.equal(result.structuredContent);
  return result.structuredContent as T;
}

interface ToolErrorBody {
  error: string;
  error_description: string;
  scope?: string;
}

export async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolErrorBody> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, `${name} should fail`).to.equal(true);
  expect(result.structuredContent).to.equal(undefined);
  return JSON.parse(textOf(result)) as ToolErrorBody;
}

/** A raw initialize POST, for the HTTP status and headers of answers the SDK client turns into exceptions. */
export async function rawInitialize(origin: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
}

// --- GraphQL shapes the tools are compared with --------------------------------------------------------------------

const PROGRESS_FIELDS = 'totalLecturesCount completedLecturesCount readLecturesCount unreadLecturesCount completionRate totalDurationSeconds completedDurationSeconds';
export const COURSE_FIELDS = `id slug title expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } detailProgress { ${PROGRESS_FIELDS} }
  sections { id title position lectures { id title position state isLocked unlockAt duration } }`;

export interface GqlLecture {
  id: string;
  title: string;
  position: number;
  state: string;
  isLocked: boolean;
  unlockAt: string | null;
  duration: number;
}

export interface GqlCourse {
  id: string;
  slug: string;
  title: string;
  expireDate: string | null;
  hasLifetimeAccess: boolean;
  lastWatchedLecture: { lectureId: string; positionSeconds: number } | null;
  detailProgress: Record<string, number>;
  sections: Array<{ id: string; title: string; position: number; lectures: GqlLecture[] }>;
}

export interface PageInfo {
  hasNextPage: boolean;
  nextCursor: string | null;
}

function expectGraphQLData<T>(result: GraphQLResult<T>): T {
  expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
  expect(result.status).to.equal(200);
  if (!result.data) throw new Error('no data');
  return result.data;
}

// --- test data ---------------------------------------------------------------------------------------------------

/** The demo school at site A plus catalogue edge cases: what the public tools must and must not show. */
function schoolDocument(origin: string, now: number): ImportDocument {
  const demo = buildDemoDocument(origin, new Date(now));
  return {
    ...demo,
    users: [...(demo.users ?? []), { email: READER, name: 'Reader Member', roles: ['student'] }],
    courses: [
      ...(demo.courses ?? []),
      { externalId: 'crs-archived', slug: 'archived-course', title: 'Archived Typography Course', status: 'archived' },
      {
        externalId: 'crs-wild',
        slug: 'wildcards',
        title: '100% Typography_Basics',
        description: 'A title with LIKE wildcards in it.',
        status: 'published',
        sections: [{ externalId: 'wild-s1', title: 'Only section', lectures: [{ externalId: 'wild-l1', title: 'Only lecture', kind: 'video', durationSeconds: 61, isPreview: true }] }],
      },
    ],
    // READER is enrolled in the draft bootcamp: a member's course whatever its catalogue status.
    enrollments: [...(demo.enrollments ?? []), { externalId: 'enr-reader-draft', course: 'crs-folio', user: READER, enrolledAt: iso(now - 5 * DAY), hasLifetimeAccess: true }],
    events: [
      ...(demo.events ?? []),
      { externalId: 'evt-private', slug: 'private-critique', title: 'Private Critique', startsAt: iso(now + 5 * DAY), endsAt: iso(now + 5 * DAY + HOUR), format: 'online', isPublic: false },
      { externalId: 'evt-draft', slug: 'draft-event', title: 'Draft Event', startsAt: iso(now + 6 * DAY), endsAt: iso(now + 6 * DAY + HOUR), format: 'online', status: 'draft' },
      { externalId: 'evt-now', slug: 'happening-now', title: 'Happening Now', startsAt: iso(now - HOUR), endsAt: iso(now + HOUR), format: 'venue', location: 'Studio 3', capacity: 2, registrations: [{ user: READER, state: 'registered', registeredAt: iso(now - DAY) }] },
    ],
    consultingServices: [
      ...(demo.consultingServices ?? []),
      { externalId: 'svc-draft', title: 'Draft Service', durationMinutes: 30, capacity: 1, status: 'draft' },
      {
        externalId: 'svc-career',
        title: 'Career Chat',
        durationMinutes: 30,
        capacity: 2,
        price: { amount: 50000, currency: 'TWD' },
        courses: ['crs-wild', 'crs-folio'],
        slots: [
          { externalId: 'slot-old', weekday: 1, startTime: '09:00', durationMinutes: 30, timezone: 'Asia/Taipei', capacity: 2, validUntil: iso(now - DAY) },
          { externalId: 'slot-sun', weekday: 0, startTime: '10:00', durationMinutes: 30, timezone: 'Asia/Taipei', capacity: 2 },
          { externalId: 'slot-mon', weekday: 1, startTime: '18:00', durationMinutes: 30, timezone: 'Asia/Taipei', capacity: 2 },
        ],
      },
    ],
    notifications: [
      ...(demo.notifications ?? []),
      { externalId: 'ntf-reader-1', user: READER, kind: 'announcement', title: 'Welcome', createdAt: iso(now - 3 * HOUR) },
      { externalId: 'ntf-reader-2', user: READER, kind: 'course_update', title: 'New lecture', createdAt: iso(now - 2 * HOUR) },
      { externalId: 'ntf-reader-3', user: READER, kind: 'payment', title: 'Receipt', createdAt: iso(now - HOUR) },
    ],
  };
}

/** Site B: Mia has a role and data there too; none of it may show at site A. */
function siteBDocument(origin: string, now: number): ImportDocument {
  return {
    formatVersion: 1,
    site: { origin, name: 'Beta School' },
    users: [{ email: MIA, name: DEMO_LOGINS.member.name, roles: ['student'] }],
    courses: [{ externalId: 'crs-beta', slug: 'beta-course', title: 'Beta Typography', status: 'published' }],
    enrollments: [{ externalId: 'enr-beta', course: 'crs-beta', user: MIA, enrolledAt: iso(now - DAY), hasLifetimeAccess: true }],
    notifications: [{ externalId: 'b-ntf', user: MIA, kind: 'announcement', title: 'Beta news', createdAt: iso(now - MINUTE) }],
  };
}

// --- the fixture -------------------------------------------------------------------------------------------------

export type McpCallerToken = 'full' | 'read' | 'write' | 'identity' | 'reader' | 'siteB' | 'operator';

/** What a suite's tests reach once `useMcpSchool`'s `before` hook has run. */
export interface McpSchool {
  server: TestServer;
  db: Database;
  /** Site A, the demo school. */
  origin: string;
  /** The demo member, with data at site B too. */
  mia: User;
  /** A second member of site A, enrolled in the draft bootcamp, with three unread notifications. */
  reader: User;
  /** A public member client of site A with every member scope. */
  memberApp: TestClient;
  /**
   * Mia's tokens at site A by scope: `full` (every member scope), `read` (openid account:read), `write` (openid
   * account:write), `identity` (openid profile email); `reader`'s full token; Mia's full token at site B; and an
   * operator token (Olivia: openid courses:read school:read).
   */
  tokens: Record<McpCallerToken, string>;
  /** The member GraphQL API's data for `query`, which must answer without errors. */
  ask<T>(token: string, query: string): Promise<T>;
}

/** Declares `before`/`after` hooks that start a server of `variant` on the scratch database and import the school. */
export function useMcpSchool(variant: Variant, scratch: () => ScratchDatabase): McpSchool {
  const school = {
    tokens: {},
    ask: async <T>(token: string, query: string): Promise<T> => expectGraphQLData(await gql<T>(school.origin, variant, token, query)),
  } as McpSchool;

  async function userOf(email: string): Promise<User> {
    const user = await findUserByEmail(school.db, email);
    if (!user) throw new Error(`no user ${email}`);
    return user;
  }

  before(async function () {
    this.timeout(120_000);
    const db = scratch().db;
    school.db = db;
    const server = await startTestServer(scratch(), { variant });
    school.server = server;
    school.origin = server.siteA.origin;
    const now = Date.now();
    await importSiteDocument(db, schoolDocument(school.origin, now));
    await importSiteDocument(db, siteBDocument(server.siteB.origin, now));
    const mia = await userOf(MIA);
    school.mia = mia;
    school.reader = await userOf(READER);
    school.memberApp = await makeClient(db, server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'email', 'account:read', 'account:write'] });
    const tokens = school.tokens;
    tokens.full = await memberToken(db, server.siteA, mia);
    tokens.read = await memberToken(db, server.siteA, mia, 'openid account:read');
    tokens.write = await memberToken(db, server.siteA, mia, 'openid account:write');
    tokens.identity = await memberToken(db, server.siteA, mia, 'openid profile email');
    tokens.reader = await memberToken(db, server.siteA, school.reader);
    tokens.siteB = await memberToken(db, server.siteB, mia);
    const olivia = await userOf(OLIVIA);
    const operatorApp = await makeClient(db, server.siteA, { audience: 'operator', confidential: false, scopes: ['openid', 'courses:read', 'school:read'] });
    const grant = await issueCode(db, server.siteA, operatorApp, olivia, 'openid courses:read school:read');
    const body = (await (await exchangeCode(await discover(school.origin), operatorApp, grant)).json()) as { access_token: string };
    tokens.operator = body.access_token;
  });

  after(async () => {
    await school.server?.stop();
  });

  return school;
}
