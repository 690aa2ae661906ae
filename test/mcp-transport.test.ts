import http from 'node:http';
import { expect } from 'chai';
import type { Variant } from '../src/config/config.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import type { McpCourse } from './support/mcp-clients.js';
import { call, rawInitialize, useMcpSchool, withClient } from './support/mcp-school.js';

/**
 * /mcp over Streamable HTTP, stateless: JSON or SSE answers by the Accept header, no sessions, concurrent members kept
 * apart, malformed bodies answered with JSON-RPC errors, and the Origin and Host checks against DNS rebinding.
 */
for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`MCP endpoint /mcp, variant ${variant}`, (scratch) => transportSuite(variant, scratch));
}

function transportSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  const school = useMcpSchool(variant, scratch);

  describe('transport', () => {
    /** A raw POST of one JSON-RPC message with the given Accept header. */
    async function post(message: Record<string, unknown>, accept: string, token?: string): Promise<Response> {
      return fetch(`${school.origin}/mcp`, {
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
      const init = await rawInitialize(school.origin);
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
      const json = await post(call, 'application/json, text/event-stream', school.tokens.read);
      expect(json.headers.get('content-type')).to.match(/^application\/json/);
      const expected = (await json.json()) as Record<string, unknown>;
      for (const accept of ['text/event-stream, application/json;q=0.5', 'application/json;q=0, text/event-stream', 'text/event-stream;q=1, application/json; q=0.9']) {
        const response = await post(call, accept, school.tokens.read);
        expect(response.status, accept).to.equal(200);
        expect(response.headers.get('content-type'), accept).to.match(/^text\/event-stream/);
        expect(response.headers.get('mcp-session-id')).to.equal(null);
        expect(sseMessages(await response.text()), accept).to.deep.equal([expected]);
      }
      // A batch of one goes through the transport's general path and gets the same answer (a lone response is written as such).
      const batch = await fetch(`${school.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${school.tokens.read}` }, body: JSON.stringify([call]) });
      expect(batch.headers.get('content-type')).to.match(/^application\/json/);
      expect(await batch.json()).to.deep.equal(expected);
      const init = await rawInitialize(school.origin, { accept: 'text/event-stream, application/json;q=0.1' });
      expect(init.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect((sseMessages(await init.text())[0]?.result as { serverInfo?: { name: string } } | undefined)?.serverInfo?.name).to.equal('schoolgate');
      // Both types must be listed (Streamable HTTP), whichever the answer uses.
      for (const accept of ['application/json', 'text/event-stream']) {
        const refused = await post(call, accept, school.tokens.read);
        expect(refused.status, accept).to.equal(406);
        await refused.arrayBuffer();
      }
    });

    it('keeps concurrent requests of different members apart (one tool registry, a context per request)', async () => {
      const [miaCourses, readerCourses] = await Promise.all(
        [school.tokens.read, school.tokens.reader].map(async (token) => withClient(school.origin, token, async (client) => (await call<{ courses: McpCourse[] }>(client, 'list_my_courses', { first: 50 })).courses.map((course) => course.slug))),
      );
      const listing = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_my_courses', arguments: { first: 50 } } };
      const answers = await Promise.all(
        Array.from({ length: 24 }, async (_, index) => {
          const token = [school.tokens.read, school.tokens.reader, school.tokens.identity][index % 3] ?? school.tokens.read;
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
        const response = await fetch(`${school.origin}/mcp`, { method, headers: { accept: 'text/event-stream' } });
        expect(response.status, method).to.equal(405);
        expect(response.headers.get('allow')).to.equal('POST');
      }
      const broken = await fetch(`${school.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":' });
      expect(broken.status).to.equal(400);
      expect(((await broken.json()) as { error: { code: number } }).error.code).to.equal(-32700);
      const text = await fetch(`${school.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' }, body: 'hello' });
      expect(text.status).to.equal(415);
      const huge = await fetch(`${school.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ padding: 'x'.repeat(70_000) }) });
      expect(huge.status).to.equal(413);
    });

    it('refuses a foreign Origin (DNS-rebinding protection) and accepts the site’s own', async () => {
      const foreign = await rawInitialize(school.origin, { origin: 'http://evil.example' });
      expect(foreign.status).to.equal(403);
      await foreign.arrayBuffer();
      const own = await rawInitialize(school.origin, { origin: school.origin });
      expect(own.status).to.equal(200);
      await own.arrayBuffer();
      const otherSite = await rawInitialize(school.origin, { origin: school.server.siteB.origin });
      expect(otherSite.status, 'another school on the same server is another origin').to.equal(403);
      await otherSite.arrayBuffer();
    });

    it('refuses a Host that names no school (the rebinding case) before any MCP processing', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const request = http.request({ host: '127.0.0.1', port: school.server.port, path: '/mcp', method: 'POST', headers: { host: `attacker.example:${school.server.port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on('error', reject);
        request.end('{}');
      });
      expect(status).to.equal(404);
    });
  });
}
