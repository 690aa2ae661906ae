import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { grantRole } from '../src/accounts/roles.js';
import { findUserByEmail, type User } from '../src/accounts/users.js';
import { createApp } from '../src/app.js';
import type { Variant } from '../src/config/config.js';
import { openDatabase, type Database } from '../src/db/connection.js';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import type { ImportDocument } from '../src/import/document.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { encodeNodeId } from '../src/member/ids.js';
import { insertPair, newGrantId, revokeGrant } from '../src/oauth/tokens/store.js';
import { createLogger } from '../src/shared/logger.js';
import { createSite, type Site } from '../src/sites/sites.js';
import { startServer } from '../src/server.js';
import { toolsOfVariant } from '../src/mcp/server.js';
import { createServices } from '../src/services.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import { MCP_ERAS, postModern, withMcpClient, type McpCourse } from './support/mcp-clients.js';
import { gql, memberToken, type GraphQLResult } from './support/member-api.js';
import { discover, exchangeCode, issueCode, makeClient, type TestClient } from './support/oauth-fixtures.js';
import { startTestServer, testConfig, type TestServer } from './support/server.js';

/**
 * /mcp (spec: Authentication 8-9 and the /mcp rows of Errors) through the SDK's own Client and
 * StreamableHTTPClientTransport, on both variants and both databases: which tools each kind of caller sees, what the
 * tools return (compared with the member GraphQL API for the same member), and the 401 / 503 / not-bound-to-a-user
 * answers. The 503 cases use real faults of the store the server under test talks to.
 */

const PUBLIC_TOOLS = ['get_school_profile', 'search_courses', 'get_course_syllabus', 'list_upcoming_events', 'list_consulting_services'];
const MEMBER_READ_TOOLS: Record<Variant, string[]> = {
  A: ['list_my_courses', 'get_my_course_syllabus', 'list_my_meetings', 'list_my_payments', 'list_my_notifications'],
  B: ['list_my_courses', 'get_my_course_syllabus'],
};
const MEMBER_WRITE_TOOLS: Record<Variant, string[]> = { A: ['mark_notification_read', 'mark_all_notifications_read'], B: [] };

const MIA = DEMO_LOGINS.member.email;
const OLIVIA = DEMO_LOGINS.operator.email;
const READER = 'reader.member@example.com';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number): string => new Date(ms).toISOString();

// --- the SDK client ------------------------------------------------------------------------------------------------

async function connect(origin: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'schoolgate-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), token === undefined ? undefined : { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

async function withClient<T>(origin: string, token: string | undefined, use: (client: Client) => Promise<T>): Promise<T> {
  const client = await connect(origin, token);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

async function toolNames(origin: string, token?: string): Promise<string[]> {
  return withClient(origin, token, async (client) => (await client.listTools()).tools.map((tool) => tool.name).sort());
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const first = (result.content as Array<{ type: string; text?: string }>)[0];
  return first?.text ?? '';
}

async function call<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
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

async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolErrorBody> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, `${name} should fail`).to.equal(true);
  expect(result.structuredContent).to.equal(undefined);
  return JSON.parse(textOf(result)) as ToolErrorBody;
}

/** A raw initialize POST, for the HTTP status and headers of answers the SDK client turns into exceptions. */
async function rawInitialize(origin: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
}

async function expectInvalidToken(origin: string, token: string | null, descriptionPart: RegExp, authorization = token === null ? undefined : `Bearer ${token}`): Promise<void> {
  const response = await rawInitialize(origin, authorization === undefined ? {} : { authorization });
  expect(response.status).to.equal(401);
  const body = (await response.json()) as { error: string; error_description: string };
  expect(body.error).to.equal('invalid_token');
  expect(body.error_description).to.match(descriptionPart);
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).to.match(/^Bearer /);
  expect(challenge).to.include('error="invalid_token"');
  expect(challenge).to.include(`resource_metadata="${origin}/.well-known/oauth-protected-resource"`);
  if (token === null) return;
  // The SDK client sees the same refusal.
  const failure = await connect(origin, token).then(
    async (client) => {
      await client.close();
      return null;
    },
    (error: unknown) => error,
  );
  expect(failure).to.be.instanceOf(StreamableHTTPError);
  expect((failure as StreamableHTTPError).code).to.equal(401);
}

async function expectUnavailable(origin: string, token: string | undefined): Promise<void> {
  const response = await rawInitialize(origin, token === undefined ? {} : { authorization: `Bearer ${token}` });
  expect(response.status).to.equal(503);
  expect(response.headers.get('www-authenticate'), 'no WWW-Authenticate, so clients keep their tokens').to.equal(null);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  const body = (await response.json()) as { error: string };
  expect(body.error).to.equal('temporarily_unavailable');
}

/**
 * An anonymous caller while the store is down: no token needs a verdict, so what fails is the first read of the store.
 * That is the site lookup (503) unless the process already knows the school, and then the tool's own read (the tool
 * error temporarily_unavailable).
 */
async function expectAnonymousUnavailable(origin: string): Promise<void> {
  const response = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_courses', arguments: {} } }),
  });
  if (response.status === 503) {
    expect(((await response.json()) as { error: string }).error).to.equal('temporarily_unavailable');
    return;
  }
  expect(response.status).to.equal(200);
  const answer = (await response.json()) as { result: { isError?: boolean; content: Array<{ text: string }> } };
  expect(answer.result.isError).to.equal(true);
  expect((JSON.parse(answer.result.content[0]?.text ?? '{}') as { error?: string }).error).to.equal('temporarily_unavailable');
}

// --- GraphQL shapes ----------------------------------------------------------------------------------------------

const PROGRESS_FIELDS = 'totalLecturesCount completedLecturesCount readLecturesCount unreadLecturesCount completionRate totalDurationSeconds completedDurationSeconds';
const COURSE_FIELDS = `id slug title expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } detailProgress { ${PROGRESS_FIELDS} }
  sections { id title position lectures { id title position state isLocked unlockAt duration } }`;
const MEETING_FIELDS = 'id kind state startAt endAt startedAt roomUrl attendeesCount service { id title } studyGroup { id name }';
const PAYMENT_FIELDS = `id tradeNo amount currency paymentType paidAt paymentState createdAt
  adjustments { kind code title amount } invoice { number type title taxId status issuedAt }
  lineitems { title kind quantity unitAmount amount productId } installment { count firstInstallmentAmount perInstallmentAmount }
  refundingState refundedAmount refundedAt refundRequestedAt bankCode bankName codeNo expiredAt`;
const NOTIFICATION_FIELDS = 'id kind title body url createdAt readAt isRead';

interface GqlLecture {
  id: string;
  title: string;
  position: number;
  state: string;
  isLocked: boolean;
  unlockAt: string | null;
  duration: number;
}

interface GqlCourse {
  id: string;
  slug: string;
  title: string;
  expireDate: string | null;
  hasLifetimeAccess: boolean;
  lastWatchedLecture: { lectureId: string; positionSeconds: number } | null;
  detailProgress: Record<string, number>;
  sections: Array<{ id: string; title: string; position: number; lectures: GqlLecture[] }>;
}

interface McpSyllabus {
  course: Omit<McpCourse, 'progress' | 'lastWatchedLecture'>;
  progress: Record<string, number>;
  resumeAt: { lectureId: string; lectureTitle: string | null; sectionTitle: string | null; positionSeconds: number; watchedAt: string | null } | null;
  nextUp: { lectureId: string; lectureTitle: string; sectionTitle: string } | null;
  sections: Array<{ id: string; title: string; position: number; lectures: Array<Omit<GqlLecture, 'duration'> & { kind: string; durationSeconds: number }> }>;
}

interface PageInfo {
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

// --- real faults -------------------------------------------------------------------------------------------------

/**
 * A TCP proxy between the server under test and MySQL. `refuse()` cuts every connection and stops listening (the
 * store is down: connection refused); `swallow()` cuts every connection and then accepts new ones without ever
 * forwarding a byte (the store hangs: the driver's connect timeout); `forward()` restores it.
 */
class TcpProxy {
  private server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private mode: 'forward' | 'swallow' = 'forward';
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {
    this.server = this.createServer();
  }

  private createServer(): net.Server {
    return net.createServer((client) => {
      this.track(client);
      client.on('error', () => client.destroy());
      if (this.mode === 'swallow') return;
      const upstream = net.connect(this.target.port, this.target.host);
      this.track(upstream);
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  private cutAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  async refuse(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  swallow(): void {
    this.mode = 'swallow';
    this.cutAll();
  }

  async forward(): Promise<void> {
    this.mode = 'forward';
    this.cutAll();
    if (!this.server.listening) {
      this.server = this.createServer();
      await this.listen();
    }
  }

  async close(): Promise<void> {
    this.cutAll();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Knex's connection warnings are the expected symptom of the faults here. */
const quiet = (): void => undefined;

/** A school at the origin of a second server instance, where Mia is a student. */
async function faultSite(db: Database, origin: string, mia: User): Promise<Site> {
  const site = await createSite(db, { origin, name: `Fault School ${new URL(origin).port}` });
  await grantRole(db, site.id, mia.id, 'student');
  return site;
}

describeEachVariant();

function describeEachVariant(): void {
  for (const variant of ['A', 'B'] as const) {
    describeEachDatabase(`MCP endpoint /mcp, variant ${variant}`, (scratch) => mcpSuite(variant, scratch));
  }
}

function mcpSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  let server: TestServer;
  let db: Database;
  let origin: string;
  let mia: User;
  let reader: User;
  let memberApp: TestClient;
  const tokens = {} as Record<'full' | 'read' | 'write' | 'identity' | 'reader' | 'siteB' | 'operator', string>;

  async function userOf(email: string): Promise<User> {
    const user = await findUserByEmail(db, email);
    if (!user) throw new Error(`no user ${email}`);
    return user;
  }

  async function ask<T>(token: string, query: string): Promise<T> {
    return expectGraphQLData(await gql<T>(origin, variant, token, query));
  }

  /** A token written straight into the store, for the shapes the token endpoint never issues. */
  async function storedToken(overrides: { userId: number | null; schoolId: number | null; site?: Site }): Promise<{ token: string; grantId: string; pairId: number }> {
    const site = overrides.site ?? server.siteA;
    const issued = await insertPair(db, { grantId: newGrantId(), siteId: site.id, clientRef: memberApp.client.ref, userId: overrides.userId, scopes: ['openid', 'account:read', 'account:write'], resource: site.origin, schoolId: overrides.schoolId, authTime: new Date() });
    return { token: issued.accessToken, grantId: issued.pair.grantId, pairId: issued.pair.id };
  }

  before(async function () {
    this.timeout(120_000);
    db = scratch().db;
    server = await startTestServer(scratch(), { variant });
    origin = server.siteA.origin;
    const now = Date.now();
    await importSiteDocument(db, schoolDocument(origin, now));
    await importSiteDocument(db, siteBDocument(server.siteB.origin, now));
    mia = await userOf(MIA);
    reader = await userOf(READER);
    memberApp = await makeClient(db, server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'email', 'account:read', 'account:write'] });
    tokens.full = await memberToken(db, server.siteA, mia);
    tokens.read = await memberToken(db, server.siteA, mia, 'openid account:read');
    tokens.write = await memberToken(db, server.siteA, mia, 'openid account:write');
    tokens.identity = await memberToken(db, server.siteA, mia, 'openid profile email');
    tokens.reader = await memberToken(db, server.siteA, reader);
    tokens.siteB = await memberToken(db, server.siteB, mia);
    const olivia = await userOf(OLIVIA);
    const operatorApp = await makeClient(db, server.siteA, { audience: 'operator', confidential: false, scopes: ['openid', 'courses:read', 'school:read'] });
    const grant = await issueCode(db, server.siteA, operatorApp, olivia, 'openid courses:read school:read');
    const body = (await (await exchangeCode(await discover(origin), operatorApp, grant)).json()) as { access_token: string };
    tokens.operator = body.access_token;
  });

  after(async () => {
    await server?.stop();
  });

  describe('who sees which tools', () => {
    it('serves an anonymous caller exactly the public tools, each with a description and input and output schemas', async () => {
      await withClient(origin, undefined, async (client) => {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).to.deep.equal([...PUBLIC_TOOLS].sort());
        for (const tool of tools) {
          expect(tool.description, tool.name).to.be.a('string').with.length.above(80);
          expect(tool.inputSchema.type).to.equal('object');
          expect(tool.outputSchema?.type, `${tool.name} has an output schema`).to.equal('object');
          expect(tool.annotations?.readOnlyHint, tool.name).to.equal(true);
        }
        expect(client.getServerVersion()?.name).to.equal('schoolgate');
        expect(client.getInstructions()).to.include(`${origin}/auth.md`);
      });
    });

    it('serves a member token with account:read and account:write the public and every user-bound tool of the variant', async () => {
      expect(await toolNames(origin, tokens.full)).to.deep.equal([...PUBLIC_TOOLS, ...MEMBER_READ_TOOLS[variant], ...MEMBER_WRITE_TOOLS[variant]].sort());
    });

    it('lists every member tool to any member token, and answers one the token lacks scopes for with HTTP 403 insufficient_scope naming every scope it needs (step-up)', async () => {
      const everyTool = [...PUBLIC_TOOLS, ...MEMBER_READ_TOOLS[variant], ...MEMBER_WRITE_TOOLS[variant]].sort();
      expect(await toolNames(origin, tokens.read)).to.deep.equal(everyTool);
      expect(await toolNames(origin, tokens.identity), 'no account scope yet: calling a member tool is how the client learns which to ask for').to.deep.equal(everyTool);
      const stepUps: Array<[token: string, tool: string, scopes: string, lacking: string]> = [[tokens.write, 'list_my_courses', 'account:read', 'account:read']];
      if (variant === 'A') stepUps.push([tokens.read, 'mark_all_notifications_read', 'account:read account:write', 'account:write']);
      for (const [token, tool, scopes, lacking] of stepUps) {
        const response = await fetch(`${origin}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: tool, arguments: {} } }),
        });
        expect(response.status, tool).to.equal(403);
        const challenge = response.headers.get('www-authenticate') ?? '';
        expect(challenge).to.match(/^Bearer /);
        expect(challenge).to.include('error="insufficient_scope"');
        expect(challenge, 'every scope the tool needs, in one value').to.include(`scope="${scopes}"`);
        expect(challenge).to.include(`resource_metadata="${origin}/.well-known/oauth-protected-resource"`);
        const body = (await response.json()) as { error: string; error_description: string };
        expect(body.error).to.equal('insufficient_scope');
        expect(body.error_description).to.include(`lacks ${lacking}`).and.to.include('authorize again');
      }
      // The SDK client sees the 403 (a client with an OAuth provider starts the step-up from it).
      await withClient(origin, tokens.write, async (client) => {
        const refused = await client.callTool({ name: 'list_my_courses', arguments: {} }).then(
          () => null,
          (error: unknown) => error,
        );
        expect(refused).to.be.instanceOf(StreamableHTTPError).with.property('code', 403);
      });
    });

    it('answers an anonymous call of a user-bound tool with 401 and the challenge that starts OAuth, and a JSON-RPC -32602 for a tool that does not exist', async () => {
      const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_my_course_syllabus', arguments: { course: 'foundations-of-typography' } } };
      const response = await fetch(`${origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(call) });
      expect(response.status).to.equal(401);
      expect(response.headers.get('www-authenticate')).to.equal(`Bearer realm="${origin}", resource_metadata="${origin}/.well-known/oauth-protected-resource", scope="account:read"`);
      const body = (await response.json()) as { error: { message: string } };
      expect(body.error.message).to.include(`${origin}/auth.md`);
      await withClient(origin, undefined, async (client) => {
        const refused = await client.callTool({ name: 'get_my_course_syllabus', arguments: { course: 'foundations-of-typography' } }).then(
          () => null,
          (error: unknown) => error,
        );
        expect(refused).to.be.instanceOf(StreamableHTTPError).with.property('code', 401);
        // The MCP tools spec: an unknown tool is a protocol error (-32602), not a tool result.
        const unknown = await client.callTool({ name: 'drop_tables', arguments: {} }).then(
          () => null,
          (error: unknown) => error as { code?: number; message?: string },
        );
        expect(unknown?.code).to.equal(-32602);
        expect(unknown?.message).to.include('Unknown tool: drop_tables');
      });
    });

    it('gives an operator token the public tools only (it holds no account scope)', async () => {
      expect(await toolNames(origin, tokens.operator)).to.deep.equal([...PUBLIC_TOOLS].sort());
      await withClient(origin, tokens.operator, async (client) => {
        expect((await callError(client, 'list_my_courses')).error).to.equal('insufficient_scope');
      });
    });

    if (variant === 'B') {
      it('has no tools for the variant A member fields (meetings, payments, notifications)', async () => {
        await withClient(origin, tokens.full, async (client) => {
          for (const name of [...MEMBER_READ_TOOLS.A, ...MEMBER_WRITE_TOOLS.A].filter((tool) => !MEMBER_READ_TOOLS.B.includes(tool))) {
            const refused = await client.callTool({ name, arguments: {} }).then(
              () => null,
              (error: unknown) => error as { code?: number },
            );
            expect(refused?.code, name).to.equal(-32602);
          }
        });
      });
    }
  });

  describe('on both protocol revisions (2025-11-25 through the SDK v1 client, 2026-07-28 through the v2 client)', () => {
    for (const era of MCP_ERAS) {
      it(`${era}: the same tools and the same answers for the same caller`, async () => {
        const everyTool = [...PUBLIC_TOOLS, ...MEMBER_READ_TOOLS[variant], ...MEMBER_WRITE_TOOLS[variant]].sort();
        const anonymous = await withMcpClient(origin, era, undefined, async (client) => (await client.listTools()).tools.map((tool) => tool.name).sort());
        expect(anonymous).to.deep.equal([...PUBLIC_TOOLS].sort());
        await withMcpClient(origin, era, tokens.read, async (client) => {
          expect((await client.listTools()).tools.map((tool) => tool.name).sort()).to.deep.equal(everyTool);
          const result = await client.callTool({ name: 'list_my_courses', arguments: { first: 50 } });
          expect(result.isError).to.not.equal(true);
          const legacy = await withClient(origin, tokens.read, (legacyClient) => call<{ courses: McpCourse[] }>(legacyClient, 'list_my_courses', { first: 50 }));
          expect(result.structuredContent).to.deep.equal(legacy);
        });
      });
    }

    it('2026-07-28: a member tool without a token answers 401 with the OAuth challenge and the request id; one the token lacks scopes for answers the 403 step-up', async () => {
      const anonymous = await postModern(origin, 'call-1', 'tools/call', { name: 'list_my_courses', arguments: {} }, { name: 'list_my_courses' });
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers.get('www-authenticate')).to.equal(`Bearer realm="${origin}", resource_metadata="${origin}/.well-known/oauth-protected-resource", scope="account:read"`);
      expect(((await anonymous.json()) as { id: unknown }).id).to.equal('call-1');
      const lacking = await postModern(origin, 2, 'tools/call', { name: 'list_my_courses', arguments: {} }, { name: 'list_my_courses', token: tokens.write });
      expect(lacking.status).to.equal(403);
      expect(lacking.headers.get('www-authenticate')).to.include('error="insufficient_scope"').and.to.include('scope="account:read"');
      await lacking.arrayBuffer();
      const granted = await postModern(origin, 3, 'tools/call', { name: 'list_my_courses', arguments: {} }, { name: 'list_my_courses', token: tokens.read });
      expect(granted.status).to.equal(200);
      const answer = (await granted.json()) as { id: unknown; result: { resultType?: string; structuredContent?: unknown } };
      expect(answer.id).to.equal(3);
      expect(answer.result.resultType).to.equal('complete');
    });

    it('lists every scope a challenge can name in the protected-resource metadata (scopes_supported)', async () => {
      const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource`)).json()) as { scopes_supported: string[] };
      const challengeable = new Set(toolsOfVariant(variant).flatMap((tool) => tool.scopes));
      expect([...challengeable].sort()).to.deep.equal(['account:read', ...(variant === 'A' ? ['account:write'] : [])]);
      for (const scope of challengeable) expect(metadata.scopes_supported, scope).to.include(scope);
    });
  });

  describe('public tools', () => {
    it('get_school_profile describes the school of the request origin', async () => {
      const profile = await withClient(origin, undefined, (client) => call<Record<string, unknown>>(client, 'get_school_profile'));
      expect(profile).to.include({ name: 'Northwind Academy of Design', url: origin, timezone: 'Asia/Taipei', defaultCurrency: 'TWD', contactEmail: 'hello@northwind-academy.example', agentGuide: `${origin}/auth.md` });
      expect(profile.lecturers).to.deep.equal([
        { name: 'Liang Wu', bio: 'Type designer and lettering artist; twelve years teaching typography.', avatarUrl: null },
        { name: 'Priya Raman', bio: 'Design systems lead who has shipped systems at three product companies.', avatarUrl: null },
      ]);
      // Published courses: the demo's four plus the wildcard one (not the draft bootcamp, not the archived course).
      // Events: Design Systems Meetup, Portfolio Night, Happening Now (not the past, private or draft ones).
      expect(profile.catalogue).to.deep.equal({ publishedCourses: 5, upcomingEvents: 3, consultingServices: 3 });
      const other = await withClient(server.siteB.origin, undefined, (client) => call<Record<string, unknown>>(client, 'get_school_profile'));
      expect(other).to.include({ name: 'Beta School', url: server.siteB.origin });
    });

    it('search_courses lists the published courses by title, pages with a cursor, and matches every word of a query', async () => {
      type Courses = { courses: Array<{ id: string; slug: string; title: string; price: unknown; lecturers: string[]; lectureCount: number; totalDurationSeconds: number; url: string }>; pageInfo: PageInfo; totalCount: number };
      await withClient(origin, undefined, async (client) => {
        const all = await call<Courses>(client, 'search_courses', { first: 50 });
        expect(all.courses.map((course) => course.slug)).to.deep.equal(['wildcards', 'color-theory-studio', 'design-systems-for-product-teams', 'foundations-of-typography', 'prototyping-in-figma']);
        expect(all.totalCount).to.equal(5);
        expect(all.pageInfo).to.deep.equal({ hasNextPage: false, nextCursor: null });
        const typography = all.courses.find((course) => course.slug === 'foundations-of-typography');
        expect(typography).to.include({ title: 'Foundations of Typography', lectureCount: 11, url: `${origin}/courses/foundations-of-typography` });
        expect(typography?.price).to.deep.equal({ amount: 360000, currency: 'TWD' });
        expect(typography?.lecturers).to.deep.equal(['Liang Wu']);

        const first = await call<Courses>(client, 'search_courses', { first: 2 });
        expect(first.courses.map((course) => course.slug)).to.deep.equal(['wildcards', 'color-theory-studio']);
        expect(first.pageInfo.hasNextPage).to.equal(true);
        const second = await call<Courses>(client, 'search_courses', { first: 2, cursor: first.pageInfo.nextCursor });
        expect(second.courses.map((course) => course.slug)).to.deep.equal(['design-systems-for-product-teams', 'foundations-of-typography']);
        const third = await call<Courses>(client, 'search_courses', { first: 2, cursor: second.pageInfo.nextCursor });
        expect(third.courses.map((course) => course.slug)).to.deep.equal(['prototyping-in-figma']);
        expect(third.pageInfo).to.deep.equal({ hasNextPage: false, nextCursor: null });

        expect((await call<Courses>(client, 'search_courses', { query: 'TYPOGRAPHY' })).courses.map((course) => course.slug)).to.deep.equal(['wildcards', 'foundations-of-typography']);
        expect((await call<Courses>(client, 'search_courses', { query: 'design systems' })).courses.map((course) => course.slug)).to.deep.equal(['design-systems-for-product-teams']);
        expect((await call<Courses>(client, 'search_courses', { query: 'typography nothing-like-this' })).totalCount).to.equal(0);
        // LIKE wildcards in a query are literal characters.
        expect((await call<Courses>(client, 'search_courses', { query: '100%' })).courses.map((course) => course.slug)).to.deep.equal(['wildcards']);
        expect((await call<Courses>(client, 'search_courses', { query: '_' })).courses.map((course) => course.slug)).to.deep.equal(['wildcards']);
        expect((await call<Courses>(client, 'search_courses', { query: 'bootcamp' })).totalCount, 'the draft course').to.equal(0);

        const badCursor = await callError(client, 'search_courses', { cursor: 'not-a-cursor' });
        expect(badCursor.error).to.equal('invalid_request');
        const tooMany = await client.callTool({ name: 'search_courses', arguments: { first: 500 } });
        expect(tooMany.isError).to.equal(true);
        expect(textOf(tooMany)).to.match(/Input validation error/);
      });
      const beta = await withClient(server.siteB.origin, undefined, (client) => call<Courses>(client, 'search_courses'));
      expect(beta.courses.map((course) => course.slug), 'only the origin’s own school').to.deep.equal(['beta-course']);
    });

    it('get_course_syllabus gives titles and durations of a published course, the same the member syllabus has, and nothing for drafts', async () => {
      type Syllabus = { course: { id: string; slug: string }; sections: Array<{ title: string; position: number; durationSeconds: number; lectures: Array<{ title: string; position: number; durationSeconds: number; kind: string; isPreview: boolean }> }> };
      await withClient(origin, undefined, async (client) => {
        const bySlug = await call<Syllabus>(client, 'get_course_syllabus', { course: 'foundations-of-typography' });
        const byId = await call<Syllabus>(client, 'get_course_syllabus', { course: bySlug.course.id });
        expect(byId).to.deep.equal(bySlug);
        expect(bySlug.sections.map((section) => section.title)).to.deep.equal(['Reading Type', 'Setting Text', 'Type in Interfaces']);
        const first = bySlug.sections[0];
        expect(first?.lectures[0]).to.deep.equal({ title: 'Why typography matters', position: 1, kind: 'video', durationSeconds: 372, isPreview: true });
        expect(first?.durationSeconds).to.equal(first?.lectures.reduce((sum, lecture) => sum + lecture.durationSeconds, 0));
        for (const section of bySlug.sections) for (const lecture of section.lectures) expect(Object.keys(lecture).sort()).to.deep.equal(['durationSeconds', 'isPreview', 'kind', 'position', 'title']);

        // The member API's view of the same course (Mia is enrolled): same titles, order and durations.
        const graph = await ask<{ viewer: { enrolledCourses: { nodes: GqlCourse[] } } }>(tokens.full, `{ viewer { enrolledCourses(first: 50) { nodes { ${COURSE_FIELDS} } } } }`);
        const enrolled = graph.viewer.enrolledCourses.nodes.find((course) => course.slug === 'foundations-of-typography');
        expect(enrolled?.id).to.equal(bySlug.course.id);
        expect(bySlug.sections.map((section) => ({ title: section.title, position: section.position, lectures: section.lectures.map(({ title, position, durationSeconds }) => ({ title, position, duration: durationSeconds })) }))).to.deep.equal(
          enrolled?.sections.map((section) => ({ title: section.title, position: section.position, lectures: section.lectures.map(({ title, position, duration }) => ({ title, position, duration })) })),
        );

        for (const hidden of ['portfolio-review-bootcamp', 'archived-course', 'no-such-course', encodeNodeId('Course', 999999), encodeNodeId('Lecture', 1)]) {
          expect((await callError(client, 'get_course_syllabus', { course: hidden })).error, hidden).to.equal('not_found');
        }
      });
      await withClient(server.siteB.origin, undefined, async (client) => {
        expect((await callError(client, 'get_course_syllabus', { course: 'foundations-of-typography' })).error, 'another school’s course').to.equal('not_found');
      });
    });

    it('list_upcoming_events lists public, published events that have not ended, soonest first, without online links', async () => {
      type Events = { events: Array<Record<string, unknown>>; pageInfo: PageInfo; totalCount: number };
      const rows = (await db('events').where({ site_id: server.siteA.id, status: 'published', is_public: true }).where('ends_at', '>', new Date()).orderBy('starts_at').select('slug')) as Array<{ slug: string }>;
      await withClient(origin, undefined, async (client) => {
        const page = await call<Events>(client, 'list_upcoming_events', { first: 50 });
        expect(page.events.map((event) => event.slug)).to.deep.equal(rows.map((row) => row.slug));
        expect(page.events.map((event) => event.slug)).to.deep.equal(['happening-now', 'design-systems-meetup-taipei', 'portfolio-night-online']);
        const now = page.events[0];
        expect(now).to.include({ title: 'Happening Now', isOnline: false, venue: 'Studio 3', capacity: 2, spotsLeft: 1, url: `${origin}/events/happening-now` });
        const meetup = page.events[1];
        expect(meetup).to.include({ capacity: 80, spotsLeft: 78 }); // two live registrations, one canceled
        expect(meetup?.price).to.deep.equal({ amount: 50000, currency: 'TWD' });
        expect(JSON.stringify(page)).not.to.include('live.northwind-academy.example');
        const one = await call<Events>(client, 'list_upcoming_events', { first: 1 });
        const rest = await call<Events>(client, 'list_upcoming_events', { first: 5, cursor: one.pageInfo.nextCursor });
        expect([...one.events, ...rest.events].map((event) => event.slug)).to.deep.equal(page.events.map((event) => event.slug));
      });
    });

    it('list_consulting_services lists published services with their current weekly slots, the same slots the member API shows', async () => {
      type Services = { services: Array<{ id: string; title: string; price: unknown; courses: Array<{ slug: string }>; weeklySlots: Array<Record<string, unknown>> }>; totalCount: number };
      const page = await withClient(origin, undefined, (client) => call<Services>(client, 'list_consulting_services', { first: 50 }));
      expect(page.services.map((service) => service.title)).to.deep.equal(['Career Chat', 'Design Systems Office Hours', 'Portfolio Review 1:1']);
      const chat = page.services[0];
      expect(chat?.courses.map((course) => course.slug), 'published courses only').to.deep.equal(['wildcards']);
      expect(chat?.weeklySlots, 'expired slot left out, Monday first').to.deep.equal([
        { weekday: 'MONDAY', startTime: '18:00', durationMinutes: 30, timezone: 'Asia/Taipei', capacity: 2 },
        { weekday: 'SUNDAY', startTime: '10:00', durationMinutes: 30, timezone: 'Asia/Taipei', capacity: 2 },
      ]);
      expect(chat?.price).to.deep.equal({ amount: 50000, currency: 'TWD' });
      const graph = await ask<{ viewer: { consultingServices: { nodes: Array<{ id: string; title: string; slots: Array<Record<string, unknown>> }> } } }>(
        tokens.full,
        '{ viewer { consultingServices(first: 50) { nodes { id title slots { weekday startTime durationMinutes timezone capacity } } } } }',
      );
      expect(graph.viewer.consultingServices.nodes).to.have.length.above(0);
      for (const service of graph.viewer.consultingServices.nodes) {
        const listed = page.services.find((candidate) => candidate.id === service.id);
        expect(listed?.title).to.equal(service.title);
        expect(listed?.weeklySlots).to.deep.equal(service.slots);
      }
    });
  });

  describe('user-bound tools match the member GraphQL API for the same member', () => {
    it('list_my_courses: the enrolled courses with progress and resume point', async () => {
      const graph = await ask<{ viewer: { enrolledCourses: { nodes: GqlCourse[]; totalCount: number } } }>(tokens.full, `{ viewer { enrolledCourses(first: 50) { nodes { ${COURSE_FIELDS} } totalCount } } }`);
      const mcp = await withClient(origin, tokens.read, (client) => call<{ courses: McpCourse[]; pageInfo: PageInfo; totalCount: number }>(client, 'list_my_courses', { first: 50 }));
      expect(mcp.totalCount).to.equal(graph.viewer.enrolledCourses.totalCount).and.to.equal(3);
      expect(mcp.courses.map((course) => ({ id: course.id, slug: course.slug, title: course.title, expireDate: course.expireDate, hasLifetimeAccess: course.hasLifetimeAccess, lastWatchedLecture: course.lastWatchedLecture, detailProgress: course.progress }))).to.deep.equal(
        graph.viewer.enrolledCourses.nodes.map((course) => ({ id: course.id, slug: course.slug, title: course.title, expireDate: course.expireDate, hasLifetimeAccess: course.hasLifetimeAccess, lastWatchedLecture: course.lastWatchedLecture, detailProgress: course.detailProgress })),
      );
      expect(mcp.courses.map((course) => course.slug)).not.to.include('beta-course');
      const paged = await withClient(origin, tokens.read, async (client) => {
        const first = await call<{ courses: McpCourse[]; pageInfo: PageInfo }>(client, 'list_my_courses', { first: 2 });
        const next = await call<{ courses: McpCourse[]; pageInfo: PageInfo }>(client, 'list_my_courses', { first: 2, cursor: first.pageInfo.nextCursor });
        return [...first.courses, ...next.courses].map((course) => course.id);
      });
      expect(paged).to.deep.equal(mcp.courses.map((course) => course.id));
    });

    it('get_my_course_syllabus: per-lecture state, locks, progress and where the member left off', async () => {
      const graph = await ask<{ viewer: { enrolledCourses: { nodes: GqlCourse[] } } }>(tokens.full, `{ viewer { enrolledCourses(first: 50) { nodes { ${COURSE_FIELDS} } } } }`);
      await withClient(origin, tokens.read, async (client) => {
        for (const course of graph.viewer.enrolledCourses.nodes) {
          const bySlug = await call<McpSyllabus>(client, 'get_my_course_syllabus', { course: course.slug });
          expect(await call<McpSyllabus>(client, 'get_my_course_syllabus', { course: course.id })).to.deep.equal(bySlug);
          expect(bySlug.course).to.include({ id: course.id, slug: course.slug, title: course.title, expireDate: course.expireDate, hasLifetimeAccess: course.hasLifetimeAccess });
          expect(bySlug.progress).to.deep.equal(course.detailProgress);
          expect(bySlug.sections.map((section) => ({ ...section, lectures: section.lectures.map(({ durationSeconds, kind: _kind, ...rest }) => ({ ...rest, duration: durationSeconds })) }))).to.deep.equal(course.sections);
          expect(bySlug.resumeAt?.lectureId ?? null).to.equal(course.lastWatchedLecture?.lectureId ?? null);
          expect(bySlug.resumeAt?.positionSeconds ?? null).to.equal(course.lastWatchedLecture?.positionSeconds ?? null);
        }
        const typography = await call<McpSyllabus>(client, 'get_my_course_syllabus', { course: 'foundations-of-typography' });
        expect(typography.resumeAt).to.include({ lectureTitle: 'Hierarchy with a single family', sectionTitle: 'Setting Text', positionSeconds: 312 });
        expect(typography.nextUp).to.deep.include({ lectureTitle: 'Hierarchy with a single family', sectionTitle: 'Setting Text' });
        const capstone = typography.sections[2]?.lectures[2];
        expect(capstone).to.include({ title: 'Capstone brief and critique sign-up', isLocked: true, state: 'unread' });

        expect((await callError(client, 'get_my_course_syllabus', { course: 'prototyping-in-figma' })).error, 'published but not enrolled').to.equal('not_found');
        expect((await callError(client, 'get_my_course_syllabus', { course: 'beta-course' })).error, 'enrolled at another school').to.equal('not_found');
      });
      // A course the member is enrolled in is theirs whatever its catalogue status (the draft bootcamp).
      await withClient(origin, tokens.reader, async (client) => {
        const draft = await call<McpSyllabus>(client, 'get_my_course_syllabus', { course: 'portfolio-review-bootcamp' });
        expect(draft.course.slug).to.equal('portfolio-review-bootcamp');
      });
    });

    if (variant === 'A') {
      it('list_my_meetings: upcoming (soonest first, canceled left out) and past (newest first) are the GraphQL windows', async () => {
        type Meeting = Record<string, unknown> & { id: string; isLive: boolean; roomUrl: string; state: string; startedAt: number };
        type Meetings = { meetings: Meeting[]; pageInfo: PageInfo; totalCount: number };
        const nowSeconds = Math.floor(Date.now() / 1000);
        const upcomingGraph = await ask<{ viewer: { consultingMeetings: { nodes: Array<Record<string, unknown>>; totalCount: number } } }>(
          tokens.full,
          `{ viewer { consultingMeetings(first: 50, filter: { startedAfter: ${nowSeconds}, state: [available, scheduled] }) { nodes { ${MEETING_FIELDS} } totalCount } } }`,
        );
        const pastGraph = await ask<{ viewer: { consultingMeetings: { nodes: Array<Record<string, unknown>>; totalCount: number } } }>(
          tokens.full,
          `{ viewer { consultingMeetings(first: 50, filter: { startedBefore: ${nowSeconds + 1} }) { nodes { ${MEETING_FIELDS} } totalCount } } }`,
        );
        await withClient(origin, tokens.read, async (client) => {
          const upcoming = await call<Meetings>(client, 'list_my_meetings', { first: 50 });
          const strip = (meetings: Meeting[]) => meetings.map(({ isLive: _isLive, ...rest }) => rest);
          expect(strip(upcoming.meetings)).to.deep.equal([...upcomingGraph.viewer.consultingMeetings.nodes].reverse());
          expect(upcoming.totalCount).to.equal(upcomingGraph.viewer.consultingMeetings.totalCount);
          expect(upcoming.meetings.length).to.be.above(1);
          expect(upcoming.meetings.every((meeting) => meeting.state !== 'canceled' && meeting.startedAt > nowSeconds - 5 && !meeting.isLive && meeting.roomUrl === '')).to.equal(true);
          const starts = upcoming.meetings.map((meeting) => meeting.startedAt);
          expect(starts).to.deep.equal([...starts].sort((a, b) => a - b));

          const past = await call<Meetings>(client, 'list_my_meetings', { when: 'past', first: 50 });
          expect(strip(past.meetings)).to.deep.equal(pastGraph.viewer.consultingMeetings.nodes);
          expect(past.meetings.some((meeting) => meeting.state === 'canceled')).to.equal(true);
          const live = past.meetings.filter((meeting) => meeting.isLive);
          expect(live).to.have.length(1);
          expect(live[0]?.roomUrl).to.equal('https://meet.northwind-academy.example/r/oh-live');
          expect(past.meetings[0]?.isLive, 'the live meeting started most recently').to.equal(true);

          // Paging upcoming: soonest first across pages.
          const one = await call<Meetings>(client, 'list_my_meetings', { first: 1 });
          const more = await call<Meetings>(client, 'list_my_meetings', { first: 50, cursor: one.pageInfo.nextCursor });
          expect([...one.meetings, ...more.meetings].map((meeting) => meeting.id)).to.deep.equal(upcoming.meetings.map((meeting) => meeting.id));
          expect(more.pageInfo).to.deep.equal({ hasNextPage: false, nextCursor: null });
        });
      });

      it('list_my_payments: every payment with its sub-records, newest first, paged like GraphQL', async () => {
        type Payments = { payments: Array<Record<string, unknown>>; pageInfo: PageInfo; totalCount: number };
        const graph = await ask<{ viewer: { payments: { nodes: Array<Record<string, unknown>>; totalCount: number; pageInfo: { endCursor: string } } } }>(
          tokens.full,
          `{ viewer { payments(first: 50) { nodes { ${PAYMENT_FIELDS} } totalCount pageInfo { endCursor } } } }`,
        );
        const graphFirst = await ask<{ viewer: { payments: { pageInfo: { endCursor: string; hasNextPage: boolean } } } }>(tokens.full, '{ viewer { payments(first: 2) { pageInfo { endCursor hasNextPage } } } }');
        await withClient(origin, tokens.read, async (client) => {
          const all = await call<Payments>(client, 'list_my_payments', { first: 50 });
          expect(all.payments).to.deep.equal(graph.viewer.payments.nodes);
          expect(all.totalCount).to.equal(graph.viewer.payments.totalCount).and.to.be.above(3);
          const first = await call<Payments>(client, 'list_my_payments', { first: 2 });
          expect(first.pageInfo).to.deep.equal({ hasNextPage: graphFirst.viewer.payments.pageInfo.hasNextPage, nextCursor: graphFirst.viewer.payments.pageInfo.endCursor });
          const rest = await call<Payments>(client, 'list_my_payments', { first: 50, cursor: first.pageInfo.nextCursor });
          expect([...first.payments, ...rest.payments]).to.deep.equal(all.payments);
          const tooMany = await client.callTool({ name: 'list_my_payments', arguments: { first: 51 } });
          expect(tooMany.isError, 'the spec caps payments pages at 50').to.equal(true);
        });
      });

      it('list_my_notifications: the inbox, its filters and the unread count', async () => {
        type Notifications = { notifications: Array<Record<string, unknown> & { isRead: boolean; kind: string }>; unreadCount: number; totalCount: number };
        const graph = await ask<{ viewer: { notifications: { nodes: Array<Record<string, unknown>>; totalCount: number }; unreadNotificationCount: number } }>(
          tokens.full,
          `{ viewer { notifications(first: 50) { nodes { ${NOTIFICATION_FIELDS} } totalCount } unreadNotificationCount } }`,
        );
        await withClient(origin, tokens.read, async (client) => {
          const all = await call<Notifications>(client, 'list_my_notifications', { first: 50 });
          expect(all.notifications).to.deep.equal(graph.viewer.notifications.nodes);
          expect(all.unreadCount).to.equal(graph.viewer.unreadNotificationCount).and.to.equal(4);
          expect(all.notifications.map((notification) => notification.title)).not.to.include('Beta news');
          const unread = await call<Notifications>(client, 'list_my_notifications', { unreadOnly: true });
          expect(unread.notifications.every((notification) => !notification.isRead)).to.equal(true);
          expect(unread.totalCount).to.equal(4);
          const payments = await call<Notifications>(client, 'list_my_notifications', { kinds: ['PAYMENT'] });
          expect(payments.notifications.map((notification) => notification.kind)).to.deep.equal(['PAYMENT', 'PAYMENT']);
          const badKind = await client.callTool({ name: 'list_my_notifications', arguments: { kinds: ['SPAM'] } });
          expect(badKind.isError).to.equal(true);
        });
      });

      it('mark_notification_read and mark_all_notifications_read change what GraphQL reads (account:write)', async () => {
        type Inbox = { notifications: Array<{ id: string; title: string; isRead: boolean; readAt: string | null; createdAt: string }>; unreadCount: number };
        await withClient(origin, tokens.reader, async (client) => {
          const inbox = await call<Inbox>(client, 'list_my_notifications');
          expect(inbox.unreadCount).to.equal(3);
          const receipt = inbox.notifications.find((notification) => notification.title === 'Receipt');
          const marked = await call<{ notification: { id: string; isRead: boolean; readAt: string }; unreadCount: number }>(client, 'mark_notification_read', { id: receipt?.id });
          expect(marked.notification.isRead).to.equal(true);
          expect(marked.unreadCount).to.equal(2);
          const again = await call<{ notification: { readAt: string } }>(client, 'mark_notification_read', { id: receipt?.id });
          expect(again.notification.readAt, 'idempotent: the first read time stays').to.equal(marked.notification.readAt);
          const graph = await ask<{ viewer: { unreadNotificationCount: number; notifications: { nodes: Array<{ id: string; isRead: boolean }> } } }>(tokens.reader, '{ viewer { unreadNotificationCount notifications(first: 10) { nodes { id isRead } } } }');
          expect(graph.viewer.unreadNotificationCount).to.equal(2);
          expect(graph.viewer.notifications.nodes.find((node) => node.id === receipt?.id)?.isRead).to.equal(true);

          expect((await callError(client, 'mark_notification_read', { id: encodeNodeId('Notification', 999999) })).error).to.equal('not_found');
          const miasNotification = (await ask<{ viewer: { notifications: { nodes: Array<{ id: string }> } } }>(tokens.full, '{ viewer { notifications(first: 1) { nodes { id } } } }')).viewer.notifications.nodes[0];
          expect((await callError(client, 'mark_notification_read', { id: miasNotification?.id })).error, "another member's notification").to.equal('not_found');

          const oldest = inbox.notifications.find((notification) => notification.title === 'Welcome');
          const some = await call<{ markedCount: number; unreadCount: number }>(client, 'mark_all_notifications_read', { createdAtOrBefore: oldest?.createdAt });
          expect(some).to.deep.equal({ markedCount: 1, unreadCount: 1 });
          const rest = await call<{ markedCount: number; unreadCount: number }>(client, 'mark_all_notifications_read');
          expect(rest).to.deep.equal({ markedCount: 1, unreadCount: 0 });
          expect((await ask<{ viewer: { unreadNotificationCount: number } }>(tokens.reader, '{ viewer { unreadNotificationCount } }')).viewer.unreadNotificationCount).to.equal(0);
        });
      });
    }
  });

  describe('authentication', () => {
    it('refuses invalid, malformed, expired, revoked and other-origin tokens with 401 invalid_token pointing at the protected-resource metadata', async () => {
      await expectInvalidToken(origin, 'sga_not-a-real-token', /not recognised/);
      await expectInvalidToken(origin, null, /Bearer/, 'Basic dXNlcjpwYXNz');
      await expectInvalidToken(origin, tokens.siteB, /different origin/);
      const expired = await storedToken({ userId: mia.id, schoolId: variant === 'A' ? server.siteA.id : null });
      await db('token_pairs').where({ id: expired.pairId }).update({ access_expires_at: new Date(Date.now() - 1000) });
      await expectInvalidToken(origin, expired.token, /expired/);
      const revoked = await storedToken({ userId: mia.id, schoolId: variant === 'A' ? server.siteA.id : null });
      await revokeGrant(db, revoked.grantId, 'revoked');
      await expectInvalidToken(origin, revoked.token, /revoked/);
    });

    it('authenticates the member from the token (userinfo sub), at the token’s own school only', async () => {
      const userinfo = (await (await fetch(`${origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.full}` } })).json()) as { sub: string };
      expect(userinfo.sub).to.equal(String(mia.id));
      const atB = await withClient(server.siteB.origin, tokens.siteB, (client) => call<{ courses: McpCourse[] }>(client, 'list_my_courses'));
      expect(atB.courses.map((course) => course.slug)).to.deep.equal(['beta-course']);
    });

    if (variant === 'A') {
      it('rejects a token with no resource owner as not bound to a user (variant A)', async () => {
        const ownerless = await storedToken({ userId: null, schoolId: server.siteA.id });
        await expectInvalidToken(origin, ownerless.token, /not bound to a user/);
      });

      it('rejects a member token without this school’s school_id as issued for a different organization (variant A)', async () => {
        const noSchool = await storedToken({ userId: mia.id, schoolId: null });
        await expectInvalidToken(origin, noSchool.token, /different organization/);
      });
    } else {
      it('serves a token with no resource owner the public tools only (variant B)', async () => {
        const ownerless = await storedToken({ userId: null, schoolId: null });
        expect(await toolNames(origin, ownerless.token)).to.deep.equal([...PUBLIC_TOOLS].sort());
        await withClient(origin, ownerless.token, async (client) => {
          const denied = await callError(client, 'list_my_courses');
          expect(denied.error).to.equal('insufficient_scope');
          expect(denied.error_description).to.include('not bound to a member');
        });
      });
    }
  });

  describe('transport', () => {
    /** A raw POST of one JSON-RPC message with the given Accept header. */
    async function post(message: Record<string, unknown>, accept: string, token?: string): Promise<Response> {
      return fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, 'mcp-protocol-version': '2025-06-18', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
        body: JSON.stringify(message),
      });
    }

    /** The JSON-RPC messages of an SSE answer (its `data:` lines). */
    function sseMessages(stream: string): Array<Record<string, unknown>> {
      return stream
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
    }

    it('answers a request as one JSON body when the client accepts application/json (the usual Accept of both types), notifications with 202, without a session id (stateless)', async () => {
      const init = await rawInitialize(origin);
      expect(init.status).to.equal(200);
      expect(init.headers.get('content-type')).to.match(/^application\/json/);
      expect(init.headers.get('mcp-session-id')).to.equal(null);
      expect(init.headers.get('x-request-id')).to.be.a('string');
      const answer = (await init.json()) as { id: number; result?: { serverInfo?: { name: string }; protocolVersion?: string } };
      expect(answer.id).to.equal(1);
      expect(answer.result?.serverInfo?.name).to.equal('schoolgate');
      const notified = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, 'application/json, text/event-stream');
      expect(notified.status).to.equal(202);
      // Any instance can answer any request: a tools/call with no initialize before it on this connection.
      const direct = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_school_profile', arguments: {} } }, 'application/json, text/event-stream');
      expect(direct.status).to.equal(200);
      expect(direct.headers.get('content-type')).to.match(/^application\/json/);
      const result = (await direct.json()) as { id: number; result: { structuredContent: { name: string } } };
      expect(result.id).to.equal(7);
      expect(result.result.structuredContent.name).to.equal('Northwind Academy of Design');
    });

    it('answers as an SSE stream when the client prefers text/event-stream or refuses application/json, with the same JSON-RPC response', async () => {
      const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_my_courses', arguments: { first: 2 } } };
      const json = await post(call, 'application/json, text/event-stream', tokens.read);
      expect(json.headers.get('content-type')).to.match(/^application\/json/);
      const expected = (await json.json()) as Record<string, unknown>;
      for (const accept of ['text/event-stream, application/json;q=0.5', 'application/json;q=0, text/event-stream', 'text/event-stream;q=1, application/json; q=0.9']) {
        const response = await post(call, accept, tokens.read);
        expect(response.status, accept).to.equal(200);
        expect(response.headers.get('content-type'), accept).to.match(/^text\/event-stream/);
        expect(response.headers.get('mcp-session-id')).to.equal(null);
        expect(sseMessages(await response.text()), accept).to.deep.equal([expected]);
      }
      // A batch of one goes through the transport's general path and gets the same answer (a lone response is written as such).
      const batch = await fetch(`${origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${tokens.read}` }, body: JSON.stringify([call]) });
      expect(batch.headers.get('content-type')).to.match(/^application\/json/);
      expect(await batch.json()).to.deep.equal(expected);
      const init = await rawInitialize(origin, { accept: 'text/event-stream, application/json;q=0.1' });
      expect(init.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect((sseMessages(await init.text())[0]?.result as { serverInfo?: { name: string } } | undefined)?.serverInfo?.name).to.equal('schoolgate');
      // Both types must be listed (Streamable HTTP), whichever the answer uses.
      for (const accept of ['application/json', 'text/event-stream']) {
        const refused = await post(call, accept, tokens.read);
        expect(refused.status, accept).to.equal(406);
        await refused.arrayBuffer();
      }
    });

    it('keeps concurrent requests of different members apart (one tool registry, a context per request)', async () => {
      const [miaCourses, readerCourses] = await Promise.all(
        [tokens.read, tokens.reader].map(async (token) => withClient(origin, token, async (client) => (await call<{ courses: McpCourse[] }>(client, 'list_my_courses', { first: 50 })).courses.map((course) => course.slug))),
      );
      const listing = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_my_courses', arguments: { first: 50 } } };
      const answers = await Promise.all(
        Array.from({ length: 24 }, async (_, index) => {
          const token = [tokens.read, tokens.reader, tokens.identity][index % 3] ?? tokens.read;
          const response = await post(listing, index % 2 === 0 ? 'application/json, text/event-stream' : 'text/event-stream, application/json;q=0.5', token);
          const text = await response.text();
          const message = (response.headers.get('content-type')?.startsWith('text/event-stream') ? sseMessages(text)[0] : JSON.parse(text)) as { result: { structuredContent?: { courses: McpCourse[] } } };
          return { index, status: response.status, message };
        }),
      );
      for (const { index, status, message } of answers) {
        if (index % 3 === 2) {
          expect(status, 'no account scope: step-up').to.equal(403);
        } else {
          expect(message.result.structuredContent?.courses.map((course) => course.slug)).to.deep.equal(index % 3 === 0 ? miaCourses : readerCourses);
        }
      }
      expect(miaCourses).not.to.deep.equal(readerCourses);
    });

    it('answers GET and DELETE with 405 (no sessions, no standalone stream), and malformed bodies with JSON-RPC errors', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(`${origin}/mcp`, { method, headers: { accept: 'text/event-stream' } });
        expect(response.status, method).to.equal(405);
        expect(response.headers.get('allow')).to.equal('POST');
      }
      const broken = await fetch(`${origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":' });
      expect(broken.status).to.equal(400);
      expect(((await broken.json()) as { error: { code: number } }).error.code).to.equal(-32700);
      const text = await fetch(`${origin}/mcp`, { method: 'POST', headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' }, body: 'hello' });
      expect(text.status).to.equal(415);
      const huge = await fetch(`${origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ padding: 'x'.repeat(70_000) }) });
      expect(huge.status).to.equal(413);
    });

    it('refuses a foreign Origin (DNS-rebinding protection) and accepts the site’s own', async () => {
      const foreign = await rawInitialize(origin, { origin: 'http://evil.example' });
      expect(foreign.status).to.equal(403);
      await foreign.arrayBuffer();
      const own = await rawInitialize(origin, { origin });
      expect(own.status).to.equal(200);
      await own.arrayBuffer();
      const otherSite = await rawInitialize(origin, { origin: server.siteB.origin });
      expect(otherSite.status, 'another school on the same server is another origin').to.equal(403);
      await otherSite.arrayBuffer();
    });

    it('refuses a Host that names no school (the rebinding case) before any MCP processing', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const request = http.request({ host: '127.0.0.1', port: server.port, path: '/mcp', method: 'POST', headers: { host: `attacker.example:${server.port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on('error', reject);
        request.end('{}');
      });
      expect(status).to.equal(404);
    });
  });

  describe('when no verdict on the token can be reached', () => {
    it('answers 503 temporarily_unavailable without WWW-Authenticate while the store refuses connections, and serves again once it is back', async function () {
      this.timeout(60_000);
      if (scratch().kind === 'mysql') {
        // MySQL: the server under test reaches the database through a TCP proxy; the proxy is shut (connection refused).
        const config = scratch().config;
        if (config.client !== 'mysql') throw new Error('expected a MySQL scratch database');
        const proxy = new TcpProxy({ host: config.host, port: config.port });
        await proxy.listen();
        const proxied = { ...config, host: '127.0.0.1', port: proxy.port };
        const proxiedDb = openDatabase(proxied, quiet);
        const running = await startServer(testConfig({ variant, database: proxied }), { db: proxiedDb, logger: createLogger('silent') });
        try {
          const faultOrigin = `http://localhost:${new URL(running.listeningOn).port}`;
          const token = await memberToken(db, await faultSite(db, faultOrigin, mia), mia, 'openid account:read');
          expect(await toolNames(faultOrigin, token)).to.include('list_my_courses');
          await proxy.refuse();
          // First on the pooled connections the proxy cut (EPIPE / connection lost), then on new ones (refused).
          await expectUnavailable(faultOrigin, token);
          await delay(200);
          await expectUnavailable(faultOrigin, token);
          await expectAnonymousUnavailable(faultOrigin);
          const failure = await connect(faultOrigin, token).then(
            async (client) => {
              await client.close();
              return null;
            },
            (error: unknown) => error,
          );
          expect((failure as StreamableHTTPError).code, 'the SDK client sees the 503').to.equal(503);
          await proxy.forward();
          expect(await toolNames(faultOrigin, token), 'the same token works once the store is back').to.include('list_my_courses');
        } finally {
          await running.stop(1000);
          await proxiedDb.destroy();
          await proxy.close();
        }
      } else {
        // SQLite: a server instance whose pool opens the database file after the file was replaced by a directory
        // (the file is unreachable: SQLITE_CANTOPEN); putting the file back brings it up without a restart.
        const config = scratch().config;
        if (config.client !== 'sqlite') throw new Error('expected an SQLite scratch database');
        const faultDb = openDatabase(config, quiet);
        const app = createApp(createServices(testConfig({ variant, database: config }), faultDb, createLogger('silent')));
        const httpServer = http.createServer(app.callback());
        await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
        const moved = `${config.filename}.moved`;
        let swapped = false;
        try {
          const faultOrigin = `http://localhost:${(httpServer.address() as AddressInfo).port}`;
          // The token is written to the store directly: issuing it through this instance would open its pool early.
          const site = await faultSite(db, faultOrigin, mia);
          const faultClient = await makeClient(db, site, { audience: 'member', confidential: false, scopes: ['account:read'] });
          const issued = await insertPair(db, { grantId: newGrantId(), siteId: site.id, clientRef: faultClient.client.ref, userId: mia.id, scopes: ['account:read'], resource: faultOrigin, schoolId: variant === 'A' ? site.id : null, authTime: new Date() });
          fs.renameSync(config.filename, moved);
          fs.mkdirSync(config.filename);
          swapped = true;
          await expectUnavailable(faultOrigin, issued.accessToken);
          await expectUnavailable(faultOrigin, undefined);
          fs.rmdirSync(config.filename);
          fs.renameSync(moved, config.filename);
          swapped = false;
          expect(await toolNames(faultOrigin, issued.accessToken), 'the same token works once the file is back').to.include('list_my_courses');
        } finally {
          if (swapped) {
            fs.rmdirSync(config.filename);
            fs.renameSync(moved, config.filename);
          }
          httpServer.closeAllConnections();
          await new Promise<void>((resolve) => httpServer.close(() => resolve()));
          await faultDb.destroy();
        }
      }
    });

    it('answers 503 temporarily_unavailable without WWW-Authenticate while the store times out, and serves again once it answers', async function () {
      this.timeout(60_000);
      if (scratch().kind === 'mysql') {
        // MySQL: the proxy accepts connections but never forwards a byte; the driver's connect timeout fires.
        const config = scratch().config;
        if (config.client !== 'mysql') throw new Error('expected a MySQL scratch database');
        const proxy = new TcpProxy({ host: config.host, port: config.port });
        await proxy.listen();
        const proxied = { ...config, host: '127.0.0.1', port: proxy.port };
        const proxiedDb = openDatabase(proxied, quiet);
        const running = await startServer(testConfig({ variant, database: proxied }), { db: proxiedDb, logger: createLogger('silent') });
        try {
          const faultOrigin = `http://localhost:${new URL(running.listeningOn).port}`;
          const token = await memberToken(db, await faultSite(db, faultOrigin, mia), mia, 'openid account:read');
          expect(await toolNames(faultOrigin, token)).to.include('list_my_courses');
          proxy.swallow();
          // Let the driver notice the cut connections, so the request needs a new one and waits for it in vain.
          await delay(200);
          const started = Date.now();
          await expectUnavailable(faultOrigin, token);
          expect(Date.now() - started, 'answered after the connect timeout, not at once').to.be.at.least(4000);
          await proxy.forward();
          expect(await toolNames(faultOrigin, token)).to.include('list_my_courses');
        } finally {
          await running.stop(1000);
          await proxiedDb.destroy();
          await proxy.close();
        }
      } else {
        // SQLite: another connection holds the write lock longer than the server's busy_timeout. A fresh token's
        // first presentation must be recorded (it revokes a refreshed predecessor), so no verdict can be reached.
        const config = scratch().config;
        if (config.client !== 'sqlite') throw new Error('expected an SQLite scratch database');
        const fresh = await memberToken(db, server.siteA, mia, 'openid account:read');
        const locker = openDatabase(config, quiet);
        try {
          await locker.transaction(async (trx) => {
            await trx('sites').where({ id: server.siteA.id }).update({ version: trx.raw('version') });
            await expectUnavailable(origin, fresh);
          });
          expect(await toolNames(origin, fresh), 'the same token works once the lock is released').to.include('list_my_courses');
        } finally {
          await locker.destroy();
        }
      }
    });
  });
}
