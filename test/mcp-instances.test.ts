import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { findUserByEmail } from '../src/accounts/users.js';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { requireSiteByOrigin } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { connectMcp, type AnyMcpClient, type McpEra } from './support/mcp-clients.js';
import { memberToken } from './support/member-api.js';
import { freePort, startServerProcess, type ServerProcess } from './support/processes.js';

/**
 * Several instances of the server over one database: two server processes (`src/main.ts`, as `npm start` runs it)
 * behind a small round-robin HTTP proxy, so a real MCP client sees one origin, the proxy's, and the school is the
 * site of that origin (each instance finds it from the Host header the proxy passes on unchanged). The proxy notes
 * which instance answered each request, and what the request was.
 *
 * - A 2026-07-28 conversation through the SDK's v2 client (server/discover, lists, a member tool, member resources,
 *   a prompt) is answered alternately by both instances with no affinity, and every answer is the same whichever
 *   instance gave it.
 * - A 2025-11-25 session through the SDK's v1 client whose initialize landed on one instance keeps working when every
 *   later request lands on the other, also once the first instance has exited: no session id, nothing in memory.
 */

interface Hop {
  instance: number;
  httpMethod: string;
  /** The JSON-RPC method of the body (the first of a batch), or null when there is none. */
  rpc: string | null;
  status: number;
}

/** Which instance takes a request: by its JSON-RPC method and the number of requests before it. */
type Routing = (rpc: string | null, sequence: number) => number;

const ROUND_ROBIN: Routing = (_rpc, sequence) => sequence % 2;

class RoundRobinProxy {
  readonly hops: Hop[] = [];
  routing: Routing = ROUND_ROBIN;
  backends: number[] = [];
  private sequence = 0;
  private readonly server = http.createServer((request, response) => void this.forward(request, response));

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** Starts counting afresh (and routing round robin unless told otherwise). */
  reset(routing: Routing = ROUND_ROBIN): void {
    this.hops.length = 0;
    this.sequence = 0;
    this.routing = routing;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async forward(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const rpc = rpcMethodOf(body);
    const instance = this.routing(rpc, this.sequence);
    this.sequence += 1;
    const hop: Hop = { instance, httpMethod: request.method ?? '', rpc, status: 0 };
    this.hops.push(hop);
    // The Host header goes on as the client sent it: the instance finds the school from it.
    const upstream = http.request({ host: '127.0.0.1', port: this.backends[instance], method: request.method, path: request.url, headers: request.headers }, (answer) => {
      hop.status = answer.statusCode ?? 0;
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => {
      hop.status = 502;
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
      response.end('the instance did not answer');
    });
    upstream.end(body);
  }
}

function rpcMethodOf(body: Buffer): string | null {
  try {
    const message = JSON.parse(body.toString('utf8')) as unknown;
    const first: unknown = Array.isArray(message) ? message[0] : message;
    const method = typeof first === 'object' && first !== null ? (first as { method?: unknown }).method : undefined;
    return typeof method === 'string' ? method : null;
  } catch {
    return null;
  }
}

interface McpCourse {
  slug: string;
  title: string;
  progress: Record<string, number>;
}

function structured<T>(result: unknown): T {
  const call = result as { isError?: boolean; structuredContent?: unknown; content?: Array<{ text?: string }> };
  if (call.isError) throw new Error(`tool error: ${call.content?.[0]?.text ?? ''}`);
  return call.structuredContent as T;
}

function textContents(result: unknown): string {
  return ((result as { contents: Array<{ text?: string }> }).contents[0]?.text ?? '') as string;
}

describeEachDatabase('MCP /mcp: two instances over one database behind a round-robin proxy', (scratch) => {
  const proxy = new RoundRobinProxy();
  const instances: ServerProcess[] = [];
  let origin: string;
  let host: string;
  let token: string;
  let enrolledSlugs: string[];

  before(async function () {
    this.timeout(240_000);
    const { db } = scratch();
    const proxyPort = await proxy.listen();
    origin = `http://localhost:${proxyPort}`;
    host = new URL(origin).host;
    await importSiteDocument(db, buildDemoDocument(origin, new Date()));
    const site = await requireSiteByOrigin(db, origin);
    for (let index = 0; index < 2; index += 1) {
      const port = await freePort();
      proxy.backends.push(port);
      instances.push(await startServerProcess({ DATABASE_URL: scratch().url, PORT: String(port), LOG_LEVEL: 'silent', SCHOOLGATE_DEMO: 'false' }));
    }
    const mia = await findUserByEmail(db, DEMO_LOGINS.member.email);
    if (!mia) throw new Error('the demo school has no member');
    // Issued through the proxy: the token endpoint of one instance, the token checked by both below.
    token = await memberToken(db, site, mia, 'openid account:read');
    const rows = (await db('enrollments').join('courses', 'courses.id', 'enrollments.course_id').where({ 'enrollments.site_id': site.id, 'enrollments.user_id': mia.id }).select('courses.slug')) as Array<{ slug: string }>;
    enrolledSlugs = rows.map((row) => row.slug).sort();
    if (enrolledSlugs.length === 0) throw new Error('the demo member has no enrollments');
  });

  after(async function () {
    this.timeout(60_000);
    for (const instance of instances) {
      if (instance.child.exitCode === null && instance.child.signalCode === null) instance.child.kill('SIGTERM');
      await instance.exited;
    }
    await proxy.close();
  });

  /** The instances that answered the MCP POSTs since the last reset, in order, with their JSON-RPC methods. */
  const mcpHops = () => proxy.hops.filter((hop) => hop.httpMethod === 'POST' && hop.rpc !== null);

  async function withClient<T>(era: McpEra, use: (client: AnyMcpClient) => Promise<T>): Promise<T> {
    const client = await connectMcp(origin, era, token);
    try {
      return await use(client);
    } finally {
      await client.close();
    }
  }

  it('serves a 2026-07-28 conversation of the v2 client alternately from both instances, every answer the same whichever instance gave it', async function () {
    this.timeout(120_000);
    proxy.reset();
    await withClient('2026-07-28', async (client) => {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).to.include.members(['list_my_courses', 'get_my_course_syllabus']);
      // The same member tool twice in a row: one answer from each instance.
      const first = structured<{ courses: McpCourse[] }>(await client.callTool({ name: 'list_my_courses', arguments: { first: 50 } }));
      const second = structured<{ courses: McpCourse[] }>(await client.callTool({ name: 'list_my_courses', arguments: { first: 50 } }));
      expect(first.courses.map((course) => course.slug).sort()).to.deep.equal(enrolledSlugs);
      expect(second).to.deep.equal(first);
      const slug = enrolledSlugs[0] as string;
      const syllabus = structured<{ course: { slug: string } }>(await client.callTool({ name: 'get_my_course_syllabus', arguments: { course: slug } }));
      expect(syllabus.course.slug).to.equal(slug);

      // Member resources: the listing (with its cursor, when there is more) and two reads of each resource.
      const listed = await client.listResources();
      const uris = listed.resources.map((resource) => resource.uri);
      expect(uris).to.include(`school://${host}/me/courses`);
      const mine = [`school://${host}/me/courses`, `school://${host}/me/courses/${slug}/syllabus`];
      for (const uri of mine) {
        const once = await client.readResource({ uri });
        const twice = await client.readResource({ uri });
        expect(textContents(twice), uri).to.equal(textContents(once));
      }
      expect((JSON.parse(textContents(await client.readResource({ uri: mine[0] as string }))) as { courses: McpCourse[] }).courses).to.deep.equal(first.courses);
      const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
      expect(prompts.length).to.be.above(0);
    });

    const hops = mcpHops();
    const methods = hops.map((hop) => hop.rpc);
    expect(methods[0], 'the client discovers first').to.equal('server/discover');
    expect(methods).to.include.members(['tools/list', 'tools/call', 'resources/list', 'resources/read', 'prompts/list']);
    expect(hops.every((hop) => hop.status === 200), JSON.stringify(hops)).to.equal(true);
    // No affinity: each request went to the other instance than the one before it, so both served the conversation.
    hops.forEach((hop, index) => {
      if (index > 0) expect(hop.instance, `${hop.rpc} after ${hops[index - 1]?.rpc}`).not.to.equal(hops[index - 1]?.instance);
    });
    const served = [0, 1].map((instance) => hops.filter((hop) => hop.instance === instance).length);
    expect(served[0], `instance 1 answered ${served[0]} and instance 2 ${served[1]} of ${hops.length}`).to.be.at.least(4);
    expect(served[1]).to.be.at.least(4);
    const calls = hops.filter((hop) => hop.rpc === 'tools/call' || hop.rpc === 'resources/read').map((hop) => hop.instance);
    expect(new Set(calls), 'member tools and resources answered by both instances').to.have.property('size', 2);
  });

  it('keeps a 2025-11-25 session of the v1 client working when its initialize landed on one instance and everything after it on the other', async function () {
    this.timeout(120_000);
    proxy.reset((rpc) => (rpc === 'initialize' ? 0 : 1));
    await withClient('2025-11-25', async (client) => {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).to.include('list_my_courses');
      const courses = structured<{ courses: McpCourse[] }>(await client.callTool({ name: 'list_my_courses', arguments: { first: 50 } }));
      expect(courses.courses.map((course) => course.slug).sort()).to.deep.equal(enrolledSlugs);
      expect(textContents(await client.readResource({ uri: `school://${host}/me/courses` }))).to.include(enrolledSlugs[0] as string);
    });
    const hops = proxy.hops;
    expect(hops[0]).to.include({ rpc: 'initialize', instance: 0, status: 200 });
    const later = hops.slice(1);
    expect(later.map((hop) => hop.rpc)).to.include.members(['notifications/initialized', 'tools/list', 'tools/call', 'resources/read']);
    expect(later.every((hop) => hop.instance === 1)).to.equal(true);
    // The client's other requests are answered as a stateless endpoint answers them (202 for notifications, 405 for
    // the optional GET stream), successes otherwise.
    for (const hop of later) expect([200, 202, 405], `${hop.httpMethod} ${hop.rpc ?? ''}`).to.include(hop.status);
  });

  it('keeps that 2025-11-25 session working after the instance that answered its initialize has exited', async function () {
    this.timeout(120_000);
    proxy.reset((rpc) => (rpc === 'initialize' ? 0 : 1));
    const client = await connectMcp(origin, '2025-11-25', token);
    try {
      expect(proxy.hops[0]).to.include({ rpc: 'initialize', instance: 0, status: 200 });
      const first = instances[0] as ServerProcess;
      first.child.kill('SIGTERM');
      expect(await first.exited, 'the first instance stopped cleanly').to.equal(0);
      const courses = structured<{ courses: McpCourse[] }>(await client.callTool({ name: 'list_my_courses', arguments: { first: 50 } }));
      expect(courses.courses.map((course) => course.slug).sort()).to.deep.equal(enrolledSlugs);
      const syllabus = JSON.parse(textContents(await client.readResource({ uri: `school://${host}/me/courses/${enrolledSlugs[0] ?? ''}/syllabus` }))) as { course: { slug: string } };
      expect(syllabus.course.slug).to.equal(enrolledSlugs[0]);
    } finally {
      await client.close();
    }
    expect(proxy.hops.slice(1).every((hop) => hop.instance === 1)).to.equal(true);
  });
});
