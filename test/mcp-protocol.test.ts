import http from 'node:http';
import { expect } from 'chai';
import { findUserByEmail, type User } from '../src/accounts/users.js';
import type { Database } from '../src/db/connection.js';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { describeEachDatabase } from './support/databases.js';
import { MCP_ERAS, MODERN_META, type McpEra } from './support/mcp-clients.js';
import { memberToken } from './support/member-api.js';
import { startTestServer, type TestServer } from './support/server.js';
import { rowCounter, tableNames, type RowCounts } from './fuzz/support/row-counts.js';

/**
 * Bad input at /mcp, on both protocol eras and both stores: unknown and removed methods, revisions the endpoint does
 * not serve, a malformed `_meta` envelope, headers that disagree with the body, oversized and deeply nested bodies,
 * odd ids and params, hostile names, resource URIs of another school or of data that is not the caller's, and
 * foreign Origin and Host headers. Every answer is checked for its HTTP status, a JSON-RPC error with a message a
 * person can act on and the request's id (when the request has one), nothing the server made up that looks like a
 * stack trace, SQL or a source path, and no row written anywhere. Requests go out through node:http so that Host can
 * be chosen; each must be answered at all (a generous socket timeout turns a hang into a failure, not a wait).
 */

const MODERN: McpEra = '2026-07-28';
const LEGACY: McpEra = '2025-11-25';
/** The 2025-era revisions the SDK negotiates, newest first (they follow 2026-07-28 in the revision errors). */
const LEGACY_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
const BODY_LIMIT = 64 * 1024;
/** A request that gets no answer in this long is a hang (far beyond any answer here; not a latency bound). */
const HANG_MS = 30_000;

type Headers = Record<string, string>;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

interface RpcError {
  jsonrpc: string;
  id: unknown;
  error: { code: number; message: string; data?: Record<string, unknown> };
}

interface RpcResult<T = Record<string, unknown>> {
  jsonrpc: string;
  id: unknown;
  result: T;
}

/** Text the server made up that it must never send: stack frames, source paths, SQL and driver vocabulary. */
const LEAKS: ReadonlyArray<[string, RegExp]> = [
  ['a stack frame', /\n\s+at \S|\bat async\b/],
  ['a source path', /node_modules|node:internal|\/src\/\S+\.[jt]s|\.ts:\d+/],
  ['SQL', /\b(select|insert|update|delete)\b.+\b(from|into|set)\b/i],
  ['driver text', /\bSQLITE_[A-Z_]+\b|\bER_[A-Z_]{3,}\b|\bknex\b|ECONNREFUSED/],
];

function expectNoLeak(answer: Answer): void {
  for (const [what, pattern] of LEAKS) expect(answer.text, `the answer holds ${what}`).not.to.match(pattern);
}

/** The `Mcp-Name` a 2026-07-28 request carries: the tool's or prompt's name, the resource's URI (Base64 when not header-safe). */
function mcpNameOf(method: string, params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const value = method === 'resources/read' ? (params as { uri?: unknown }).uri : method === 'tools/call' || method === 'prompts/get' ? (params as { name?: unknown }).name : undefined;
  if (typeof value !== 'string') return undefined;
  return /^[\x20-\x7e]*$/.test(value) && value.trim() === value ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

describeEachDatabase('MCP /mcp: bad input on both protocol eras', (scratch) => {
  let server: TestServer;
  let db: Database;
  let origin: string;
  let host: string;
  let member: string;
  let mia: User;
  let enrolled: string;
  let notEnrolled: string;
  let countRows: () => Promise<RowCounts>;

  before(async function () {
    this.timeout(120_000);
    db = scratch().db;
    server = await startTestServer(scratch(), { variant: 'A' });
    origin = server.siteA.origin;
    host = new URL(origin).host;
    await importSiteDocument(db, buildDemoDocument(origin, new Date()));
    const found = await findUserByEmail(db, DEMO_LOGINS.member.email);
    if (!found) throw new Error('the demo school has no member');
    mia = found;
    member = await memberToken(db, server.siteA, mia);
    const slugs = (await db('courses').where({ site_id: server.siteA.id, status: 'published' }).orderBy('slug').select('id', 'slug')) as Array<{ id: number; slug: string }>;
    const mine = new Set(((await db('enrollments').where({ site_id: server.siteA.id, user_id: mia.id }).select('course_id')) as Array<{ course_id: number }>).map((row) => Number(row.course_id)));
    enrolled = slugs.find((course) => mine.has(Number(course.id)))?.slug ?? '';
    notEnrolled = slugs.find((course) => !mine.has(Number(course.id)))?.slug ?? '';
    if (enrolled === '' || notEnrolled === '') throw new Error('the demo member should have published courses both in and out of her enrollments');
    const tables = await tableNames(db, scratch().kind);
    countRows = rowCounter(db, scratch().kind, tables);
  });

  after(async () => {
    await server?.stop();
  });

  /** Runs a case and checks that no table gained or lost a row (the rate limiter's counters aside). */
  function rowsUnchanged(body: () => Promise<void>): () => Promise<void> {
    return async () => {
      const before = await countRows();
      await body();
      expect(await countRows(), 'no row written').to.deep.equal(before);
    };
  }

  /** One POST /mcp through node:http (Host is ours to choose), read whole. */
  function post(body: string | Buffer, headers: Headers, options: { host?: string; chunked?: boolean } = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      const request = http.request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/mcp',
          method: 'POST',
          setHost: false,
          headers: { host: options.host ?? host, ...(options.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(bytes.length) }), ...headers },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      request.setTimeout(HANG_MS, () => request.destroy(new Error(`no answer to POST /mcp within ${HANG_MS} ms`)));
      // The server may answer (413) before it has read the whole body; the answer still counts.
      request.on('error', reject);
      if (options.chunked) {
        for (let offset = 0; offset < bytes.length; offset += 8192) request.write(bytes.subarray(offset, offset + 8192));
        request.end();
      } else request.end(bytes);
    });
  }

  /** The headers of a request of `era` (2026-07-28: the version, Mcp-Method and Mcp-Name headers the body implies). */
  function headersFor(era: McpEra, method: string, params: unknown, token?: string): Headers {
    const name = era === MODERN ? mcpNameOf(method, params) : undefined;
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': era,
      ...(era === MODERN ? { 'mcp-method': method } : {}),
      ...(name === undefined ? {} : { 'mcp-name': name }),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    };
  }

  /** The body of a request of `era`: 2026-07-28 params carry the `_meta` envelope. */
  function bodyFor(era: McpEra, id: unknown, method: string, params: Record<string, unknown> = {}): Record<string, unknown> {
    return { jsonrpc: '2.0', id, method, params: era === MODERN ? { ...params, _meta: MODERN_META } : params };
  }

  /** A well-formed request of `era`, with header changes (null removes one). */
  function send(era: McpEra, id: unknown, method: string, params: Record<string, unknown> = {}, options: { token?: string; headers?: Record<string, string | null>; host?: string } = {}): Promise<Answer> {
    const headers = headersFor(era, method, params, options.token);
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value === null) delete headers[name];
      else headers[name] = value;
    }
    return post(JSON.stringify(bodyFor(era, id, method, params)), headers, options.host === undefined ? {} : { host: options.host });
  }

  /** The answer is one JSON-RPC error: its status, code, id, and a message that matches. */
  function expectRpcError(answer: Answer, expected: { status: number; code: number; id: unknown; message?: RegExp }): RpcError {
    expect(answer.status, answer.text.slice(0, 500)).to.equal(expected.status);
    expect(answer.headers['content-type'], 'a JSON answer').to.match(/^application\/json/);
    expectNoLeak(answer);
    const body = JSON.parse(answer.text) as RpcError;
    expect(body.jsonrpc).to.equal('2.0');
    expect(body.error, answer.text.slice(0, 500)).to.be.an('object');
    expect(body.error.code, body.error.message).to.equal(expected.code);
    expect(body.error.message).to.be.a('string').and.to.have.length.above(0);
    expect(body.id, 'the request’s id').to.deep.equal(expected.id);
    if (expected.message) expect(body.error.message).to.match(expected.message);
    return body;
  }

  /** The answer is a JSON-RPC result for `id`. */
  function expectRpcResult<T = Record<string, unknown>>(answer: Answer, id: unknown): T {
    expect(answer.status, answer.text.slice(0, 500)).to.equal(200);
    expectNoLeak(answer);
    const body = JSON.parse(answer.text) as RpcResult<T> & Partial<RpcError>;
    expect(body.error, JSON.stringify(body.error)).to.equal(undefined);
    expect(body.id).to.deep.equal(id);
    return body.result;
  }

  /** A tools/call answer that is a tool error (isError) for `id`, and its error body. */
  function expectToolError(answer: Answer, id: unknown): { error: string; error_description: string } {
    const result = expectRpcResult<{ isError?: boolean; content: Array<{ text: string }> }>(answer, id);
    expect(result.isError, 'a tool error').to.equal(true);
    return JSON.parse(result.content[0]?.text ?? '{}') as { error: string; error_description: string };
  }

  /** How a JSON-RPC error rides on each era: HTTP 200 on 2025, the status of the error code on 2026-07-28. */
  const statusOf = (era: McpEra, modernStatus: number): number => (era === MODERN ? modernStatus : 200);

  describe('unknown and removed methods', () => {
    for (const era of MCP_ERAS) {
      it(`answers a method that does not exist with -32601 and the id (${era}: HTTP ${era === MODERN ? 404 : 200}), anonymous or signed in`, rowsUnchanged(async () => {
        // 'tools/list ' cannot travel in an Mcp-Method header as it is (HTTP trims it): 2025 only.
        const unknown = ['school/enroll', 'tools/delete', 'TOOLS/LIST', 'rpc.discover', ...(era === LEGACY ? ['tools/list '] : [])];
        for (const [index, method] of unknown.entries()) {
          for (const token of [undefined, member]) {
            const answer = await send(era, 100 + index, method, {}, token === undefined ? {} : { token });
            expectRpcError(answer, { status: statusOf(era, 404), code: -32601, id: 100 + index, message: /method not found/i });
          }
        }
      }));

      it(`answers requests only a client serves (sampling, roots, elicitation) with -32601 and the id (${era})`, rowsUnchanged(async () => {
        for (const method of ['sampling/createMessage', 'roots/list', 'elicitation/create']) {
          expectRpcError(await send(era, `client-side ${method}`, method), { status: statusOf(era, 404), code: -32601, id: `client-side ${method}` });
        }
      }));
    }

    it('answers the methods 2026-07-28 removed (initialize, ping, logging/setLevel, subscriptions) sent with its envelope with 404 -32601 and the id', rowsUnchanged(async () => {
      const removed: Array<[string, Record<string, unknown>]> = [
        ['initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'x', version: '1' } }],
        ['ping', {}],
        ['logging/setLevel', { level: 'info' }],
        ['resources/subscribe', { uri: `school://${host}/profile` }],
        ['resources/unsubscribe', { uri: `school://${host}/profile` }],
      ];
      for (const [index, [method, params]] of removed.entries()) {
        expectRpcError(await send(MODERN, index + 1, method, params), { status: 404, code: -32601, id: index + 1, message: /method not found/i });
      }
    }));

    it('answers an unknown method on the 2025 era as an SSE event when the client prefers the stream, with the id', rowsUnchanged(async () => {
      const answer = await send(LEGACY, 'stream-1', 'school/enroll', {}, { headers: { accept: 'text/event-stream, application/json;q=0.5' } });
      expect(answer.status).to.equal(200);
      expect(answer.headers['content-type']).to.match(/^text\/event-stream/);
      const events = answer.text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as RpcError);
      expect(events).to.have.length(1);
      expect(events[0]?.id).to.equal('stream-1');
      expect(events[0]?.error.code).to.equal(-32601);
    }));
  });

  describe('protocol revisions the endpoint does not serve', () => {
    it('answers a 2026-era envelope and header naming 2099-01-01 with 400 -32022, the id, and the revisions it serves', rowsUnchanged(async () => {
      const meta = { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
      const body = { jsonrpc: '2.0', id: 'future', method: 'tools/list', params: { _meta: meta } };
      const answer = await post(JSON.stringify(body), { ...headersFor(MODERN, 'tools/list', {}), 'mcp-protocol-version': '2099-01-01' });
      const error = expectRpcError(answer, { status: 400, code: -32022, id: 'future', message: /unsupported protocol version: 2099-01-01/i });
      expect(error.error.data?.requested).to.equal('2099-01-01');
      expect(error.error.data?.supported, 'the 2026-era revisions server/discover names').to.deep.equal([MODERN]);
      // The same list as server/discover gives, so a client can pick from it.
      const discovered = expectRpcResult<{ supportedVersions: string[] }>(await send(MODERN, 'discover', 'server/discover'), 'discover');
      expect(discovered.supportedVersions).to.deep.equal(error.error.data?.supported);
    }));

    it('answers an envelope naming 2099-01-01 under a 2026-07-28 header as a header/body mismatch (400 -32020) with the id', rowsUnchanged(async () => {
      const body = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } };
      expectRpcError(await post(JSON.stringify(body), headersFor(MODERN, 'tools/list', {})), { status: 400, code: -32020, id: 7, message: /2099-01-01.*2026-07-28/ });
    }));

    it('answers a 2099-01-01 header on a request without the envelope with 400 -32602 naming the revision and the missing envelope, with the id', rowsUnchanged(async () => {
      const answer = await post(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} }), { ...headersFor(LEGACY, 'tools/list', {}), 'mcp-protocol-version': '2099-01-01' });
      expectRpcError(answer, { status: 400, code: -32602, id: 8, message: /2099-01-01.*_meta/ });
    }));

    it('answers an envelope naming a 2025 revision with 400 -32022: the envelope belongs to 2026-07-28 and later', rowsUnchanged(async () => {
      const body = { jsonrpc: '2.0', id: 9, method: 'tools/list', params: { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': LEGACY } } };
      const error = expectRpcError(await post(JSON.stringify(body), { ...headersFor(MODERN, 'tools/list', {}), 'mcp-protocol-version': LEGACY }), { status: 400, code: -32022, id: 9 });
      expect(error.error.data?.supported).to.deep.equal([MODERN]);
    }));

    it('answers a 2025-era request under a header naming 2024-01-01 (or 2099-01-01 on a posted response) with 400, the id, and every revision it serves', rowsUnchanged(async () => {
      for (const [index, method] of ['tools/list', 'tools/call', 'resources/list'].entries()) {
        const params = method === 'tools/call' ? { name: 'get_school_profile', arguments: {} } : {};
        for (const accept of ['application/json, text/event-stream', 'text/event-stream, application/json;q=0.5']) {
          const answer = await send(LEGACY, index + 20, method, params, { headers: { 'mcp-protocol-version': '2024-01-01', accept } });
          const error = expectRpcError(answer, { status: 400, code: -32000, id: index + 20, message: /unsupported protocol version: 2024-01-01/i });
          for (const revision of [MODERN, ...LEGACY_REVISIONS]) expect(error.error.message).to.include(revision);
          expect(error.error.data).to.deep.equal({ supported: [MODERN, ...LEGACY_REVISIONS], requested: '2024-01-01' });
        }
      }
    }));

    it('negotiates an initialize asking for 2024-01-01 down to 2025-11-25 (the 2025 handshake answers, it does not refuse)', rowsUnchanged(async () => {
      const answer = await send(LEGACY, 'init', 'initialize', { protocolVersion: '2024-01-01', capabilities: {}, clientInfo: { name: 'old', version: '1' } }, { headers: { 'mcp-protocol-version': null } });
      expect(expectRpcResult<{ protocolVersion: string }>(answer, 'init').protocolVersion).to.equal(LEGACY);
    }));

    it('refuses a posted JSON-RPC response or a batch under a 2026-07-28 header in that revision’s terms (400 -32600), never as an unsupported revision', rowsUnchanged(async () => {
      const headers = headersFor(MODERN, 'tools/list', {});
      for (const body of [{ jsonrpc: '2.0', id: 5, result: {} }, { jsonrpc: '2.0', id: 5, error: { code: -1, message: 'no' } }, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]]) {
        const error = expectRpcError(await post(JSON.stringify(body), headers), { status: 400, code: -32600, id: null, message: /responses|batches/i });
        expect(error.error.message).not.to.match(/unsupported protocol version/i);
      }
    }));
  });

  describe('the _meta envelope and the headers that mirror the body', () => {
    const withMeta = (meta: unknown, id: unknown = 30) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: meta } });

    it('answers an envelope without io.modelcontextprotocol/protocolVersion with 400 -32602 naming the key, and the id', rowsUnchanged(async () => {
      const { ['io.modelcontextprotocol/protocolVersion']: _dropped, ...rest } = MODERN_META;
      expectRpcError(await post(withMeta(rest), headersFor(MODERN, 'tools/list', {})), { status: 400, code: -32602, id: 30, message: /io\.modelcontextprotocol\/protocolVersion/ });
    }));

    it('answers clientCapabilities that is not an object with 400 -32602 naming the key, and the id', rowsUnchanged(async () => {
      for (const [index, capabilities] of (['all', 42, [1, 2], null] as unknown[]).entries()) {
        const meta = { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': capabilities };
        expectRpcError(await post(withMeta(meta, 31 + index), headersFor(MODERN, 'tools/list', {})), { status: 400, code: -32602, id: 31 + index, message: /clientCapabilities/ });
      }
    }));

    it('answers a _meta that is not an object with 400 -32600 (not a valid request) and the id', rowsUnchanged(async () => {
      for (const [index, meta] of (['2026-07-28', 7, [MODERN_META]] as unknown[]).entries()) {
        expectRpcError(await post(withMeta(meta, 40 + index), headersFor(MODERN, 'tools/list', {})), { status: 400, code: -32600, id: 40 + index, message: /not a valid JSON-RPC message/ });
      }
    }));

    it('answers an MCP-Protocol-Version header that differs from the envelope, or is missing, with 400 -32020 and the id', rowsUnchanged(async () => {
      expectRpcError(await send(MODERN, 50, 'tools/list', {}, { headers: { 'mcp-protocol-version': LEGACY } }), { status: 400, code: -32020, id: 50, message: /2026-07-28.*2025-11-25/ });
      expectRpcError(await send(MODERN, 51, 'tools/list', {}, { headers: { 'mcp-protocol-version': null } }), { status: 400, code: -32020, id: 51, message: /MCP-Protocol-Version header is absent/ });
    }));

    it('answers an Mcp-Method header that differs from the body’s method, or is missing, with 400 -32020 and the id', rowsUnchanged(async () => {
      expectRpcError(await send(MODERN, 52, 'tools/list', {}, { headers: { 'mcp-method': 'prompts/list' } }), { status: 400, code: -32020, id: 52, message: /tools\/list.*prompts\/list/ });
      expectRpcError(await send(MODERN, 53, 'tools/call', { name: 'get_school_profile', arguments: {} }, { headers: { 'mcp-method': 'tools/list' } }), { status: 400, code: -32020, id: 53 });
      expectRpcError(await send(MODERN, 54, 'tools/list', {}, { headers: { 'mcp-method': null } }), { status: 400, code: -32020, id: 54, message: /Mcp-Method header is absent/ });
    }));

    it('answers an Mcp-Name header that differs from the tool, prompt or resource named in the body, is missing or is broken Base64, with 400 -32020 and the id', rowsUnchanged(async () => {
      const named: Array<[string, Record<string, unknown>, string]> = [
        ['tools/call', { name: 'get_school_profile', arguments: {} }, 'search_courses'],
        ['prompts/get', { name: 'weekly-study-plan' }, 'find-a-course'],
        ['resources/read', { uri: `school://${host}/profile` }, `school://${host}/courses`],
      ];
      for (const [index, [method, params, other]] of named.entries()) {
        expectRpcError(await send(MODERN, 60 + index, method, params, { headers: { 'mcp-name': other } }), { status: 400, code: -32020, id: 60 + index, message: /Mcp-Name header names/ });
        expectRpcError(await send(MODERN, 70 + index, method, params, { headers: { 'mcp-name': null } }), { status: 400, code: -32020, id: 70 + index, message: /Mcp-Name header is absent/ });
        expectRpcError(await send(MODERN, 80 + index, method, params, { headers: { 'mcp-name': '=?base64?***?=' } }), { status: 400, code: -32020, id: 80 + index, message: /Base64/ });
      }
    }));
  });

  describe('sizes, nesting and shapes', () => {
    const nestedObject = (depth: number, leaf = '1') => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
    const nestedArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

    for (const era of MCP_ERAS) {
      it(`answers a body past 64 KiB with 413 before reading it as JSON-RPC, with or without Content-Length (${era})`, rowsUnchanged(async () => {
        const padding = 'x'.repeat(BODY_LIMIT);
        const body = JSON.stringify(bodyFor(era, 1, 'tools/call', { name: 'search_courses', arguments: { query: padding } }));
        for (const chunked of [false, true]) {
          // The body was never read: there is no id to echo.
          expectRpcError(await post(body, headersFor(era, 'tools/call', { name: 'search_courses' }), { chunked }), { status: 413, code: -32000, id: null, message: /too large/i });
        }
      }));

      for (const depth of [200, 10_000]) {
        it(`answers arguments nested ${depth} levels deep (within 64 KiB) with the tool's own refusal and the id, for a public and a member tool (${era})`, rowsUnchanged(async () => {
          const meta = era === MODERN ? `,"_meta":${JSON.stringify(MODERN_META)}` : '';
          const publicCall = `{"jsonrpc":"2.0","id":"deep-${depth}","method":"tools/call","params":{"name":"search_courses","arguments":{"query":${nestedObject(depth)}}${meta}}}`;
          expect(publicCall.length).to.be.below(BODY_LIMIT);
          expect(expectToolError(await post(publicCall, headersFor(era, 'tools/call', { name: 'search_courses' })), `deep-${depth}`).error_description).to.match(/query/);
          const memberCall = `{"jsonrpc":"2.0","id":${depth},"method":"tools/call","params":{"name":"list_my_courses","arguments":{"first":${nestedArray(depth)}}${meta}}}`;
          expect(expectToolError(await post(memberCall, headersFor(era, 'tools/call', { name: 'list_my_courses' }, member)), depth).error_description).to.match(/first/);
        }));

        it(`answers params nested ${depth} levels deep where no tool reads them (lists, the envelope, extra members) without a 5xx, with the id (${era})`, rowsUnchanged(async () => {
          // 2026-07-28: deep inside the envelope; 2025: an extra member of params.
          const params = era === MODERN ? `{"_meta":${JSON.stringify({ ...MODERN_META, deep: 0 }).replace('"deep":0', `"deep":${nestedObject(depth)}`)}}` : `{"extra":${nestedArray(depth)}}`;
          const listing = `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":${params}}`;
          expect(listing.length).to.be.below(BODY_LIMIT);
          const result = expectRpcResult<{ tools: unknown[] }>(await post(listing, headersFor(era, 'tools/list', {})), 3);
          expect(result.tools).to.have.length.above(0);
          // Nested where the id or the params themselves belong: not a valid request, answered with what id there is.
          expectRpcError(await post(`{"jsonrpc":"2.0","id":${nestedObject(depth)},"method":"tools/list"}`, headersFor(era, 'tools/list', {})), { status: 400, code: -32600, id: null });
          expectRpcError(await post(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":${nestedArray(depth)}}`, headersFor(era, 'tools/list', {})), { status: 400, code: -32600, id: 4 });
          expectRpcError(await post(`[${nestedArray(depth)}]`, headersFor(era, 'tools/list', {})), { status: 400, code: -32600, id: null, message: /batch/i });
        }));
      }

      it(`answers huge arrays in arguments with the tool's own refusal, or ignores them where the tool takes no such argument (${era})`, rowsUnchanged(async () => {
        const huge = Array.from({ length: 15_000 }, (_, index) => index % 10);
        const refused = expectToolError(await send(era, 'array-1', 'tools/call', { name: 'search_courses', arguments: { query: huge } }), 'array-1');
        expect(refused.error).to.equal('invalid_request');
        expect(expectToolError(await send(era, 'array-2', 'tools/call', { name: 'list_my_courses', arguments: { first: huge } }, { token: member }), 'array-2').error).to.equal('invalid_request');
        const ignored = expectRpcResult<{ isError?: boolean }>(await send(era, 'array-3', 'tools/call', { name: 'search_courses', arguments: { query: 'type', extra: Array.from({ length: 20_000 }, () => 0) } }), 'array-3');
        expect(ignored.isError, 'an unknown argument is ignored').to.equal(undefined);
      }));

      it(`answers params that are not an object (an array, a string, a number, null) with 400 -32600 and the id (${era})`, rowsUnchanged(async () => {
        for (const [index, params] of ([[1, 2], 'tools', 42, null] as unknown[]).entries()) {
          const answer = await post(JSON.stringify({ jsonrpc: '2.0', id: 90 + index, method: 'tools/list', params }), headersFor(era, 'tools/list', {}));
          expectRpcError(answer, { status: 400, code: -32600, id: 90 + index, message: /not a valid JSON-RPC message/ });
        }
      }));

      it(`answers ids of odd types: null, an object, an array or a boolean with 400 -32600 and id null; a float or an unsafe integer echoed as sent (${era})`, rowsUnchanged(async () => {
        for (const id of [null, { a: 1 }, [1], true]) {
          expectRpcError(await post(JSON.stringify(bodyFor(era, id, 'tools/list')), headersFor(era, 'tools/list', {})), { status: 400, code: -32600, id: null });
        }
        expectRpcError(await post(JSON.stringify(bodyFor(era, 1.5, 'tools/list')), headersFor(era, 'tools/list', {})), { status: 400, code: -32600, id: 1.5 });
        // 2^60 is not an integer JSON can carry exactly; the answer echoes the value as parsed.
        const unsafe = JSON.stringify(bodyFor(era, 0, 'tools/list')).replace('"id":0', '"id":1152921504606846976');
        expectRpcError(await post(unsafe, headersFor(era, 'tools/list', {})), { status: 400, code: -32600, id: 2 ** 60 });
        // Ids that are fine however odd they look.
        for (const id of [-1, 0, '', 'x'.repeat(5000)]) expect(expectRpcResult<{ tools: unknown[] }>(await send(era, id, 'tools/list'), id).tools).to.have.length.above(0);
      }));

      it(`answers an empty batch with 400 -32600 (${era} headers)`, rowsUnchanged(async () => {
        expectRpcError(await post('[]', headersFor(era, 'tools/list', {})), { status: 400, code: -32600, id: null, message: /empty JSON-RPC batch/ });
      }));
    }

    it('accepts a JSON-RPC response posted by a 2025 client with 202 and no body (the 2025 transport’s rule), and writes nothing', rowsUnchanged(async () => {
      for (const body of [{ jsonrpc: '2.0', id: 5, result: {} }, { jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'no' } }]) {
        const answer = await post(JSON.stringify(body), headersFor(LEGACY, 'tools/list', {}));
        expect(answer.status).to.equal(202);
        expect(answer.text).to.equal('');
      }
    }));

    it('answers a batch mixing a 2026-07-28 request and a 2025 request with 400 -32600 naming the rule, under either header', rowsUnchanged(async () => {
      const batch = JSON.stringify([bodyFor(MODERN, 1, 'tools/list'), bodyFor(LEGACY, 2, 'tools/list')]);
      for (const era of MCP_ERAS) expectRpcError(await post(batch, headersFor(era, 'tools/list', {})), { status: 400, code: -32600, id: null, message: /batches may not contain requests for protocol revision 2026-07-28/ });
    }));

    it('answers a 2025 batch past 100 messages with 400 -32600', rowsUnchanged(async () => {
      const batch = JSON.stringify(Array.from({ length: 101 }, (_, index) => ({ jsonrpc: '2.0', id: index, method: 'tools/list' })));
      expectRpcError(await post(batch, headersFor(LEGACY, 'tools/list', {})), { status: 400, code: -32600, id: null, message: /100/ });
    }));

    it('answers a 2025 request that does not accept both JSON and SSE with 406 and the id', rowsUnchanged(async () => {
      for (const accept of ['application/json', 'text/event-stream', 'text/html']) {
        expectRpcError(await send(LEGACY, `accept ${accept}`, 'tools/list', {}, { headers: { accept } }), { status: 406, code: -32000, id: `accept ${accept}`, message: /Not Acceptable/ });
      }
    }));
  });

  describe('params of the wrong shape for their method', () => {
    const nested = (depth: number): unknown => {
      let value: unknown = 1;
      for (let level = 0; level < depth; level += 1) value = { a: value };
      return value;
    };
    /** Method, params, and the param path the message must name. */
    const cases = (era: McpEra): Array<[string, Record<string, unknown>, string]> => [
      // The 2025 handshake; 2026-07-28 has none (initialize is an unknown method there).
      ...(era === LEGACY ? ([['initialize', { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } }, 'protocolVersion'], ['initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: null }, 'clientInfo']] as Array<[string, Record<string, unknown>, string]>) : []),
      ['tools/call', { name: 12, arguments: {} }, 'name'],
      ['tools/call', { name: 'search_courses', arguments: [1, 2] }, 'arguments'],
      ['resources/read', { uri: 5 }, 'uri'],
      ['resources/read', { uri: nested(200) }, 'uri'],
      ['resources/read', {}, 'uri'],
      ['prompts/get', { name: 'find_a_course', arguments: { interest: 5 } }, 'arguments'],
      ['prompts/get', { name: 'find_a_course', arguments: nested(200) }, 'arguments'],
      ['prompts/get', {}, 'name'],
      ['resources/list', { cursor: 5 }, 'cursor'],
      ['tools/list', { cursor: { page: 2 } }, 'cursor'],
      ['prompts/list', { cursor: [1] }, 'cursor'],
      ['resources/templates/list', { cursor: false }, 'cursor'],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'find_a_course' } }, 'argument'],
      ['completion/complete', { ref: { type: 'ref/other', name: 'x' }, argument: { name: 'interest', value: '' } }, 'ref'],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'find_a_course' }, argument: { name: 'interest', value: 7 } }, 'argument'],
    ];

    for (const era of MCP_ERAS) {
      it(`answers them with -32602 naming the param at fault in words, and the id, signed in or not (${era})`, rowsUnchanged(async () => {
        for (const [index, [method, params, path]] of cases(era).entries()) {
          for (const token of [undefined, member]) {
            const answer = await send(era, index, method, params, token === undefined ? {} : { token });
            const error = expectRpcError(answer, { status: 200, code: -32602, id: index });
            expect(error.error.message, `${method} ${JSON.stringify(params).slice(0, 80)}`).to.include(method).and.to.include(path);
            expect(error.error.message, 'a sentence, not a dump of schema issues').not.to.match(/^\[|"code":|\n/);
          }
        }
      }));
    }
  });

  describe('hostile names and URIs', () => {
    const LONG = `n${'a'.repeat(10 * 1024)}`;
    const CONTROL = 'get_school\u0000_profile\u001b[31m\r\n\u007f';

    for (const era of MCP_ERAS) {
      it(`answers tool names with control characters or 10 KB long as unknown tools (-32602), with the id and without echoing 10 KB back (${era})`, rowsUnchanged(async () => {
        for (const [index, name] of [CONTROL, LONG].entries()) {
          const error = expectRpcError(await send(era, index, 'tools/call', { name, arguments: {} }), { status: 200, code: -32602, id: index, message: /unknown tool[\s\S]*tools\/list/i });
          expect(error.error.message.length).to.be.below(1000);
        }
      }));

      it(`answers prompt names with control characters or 10 KB long with -32602 and the id (${era})`, rowsUnchanged(async () => {
        for (const [index, name] of [CONTROL, LONG].entries()) {
          const error = expectRpcError(await send(era, index, 'prompts/get', { name }), { status: 200, code: -32602, id: index, message: /not found/ });
          expect(error.error.data?.name).to.equal(name);
        }
      }));

      it(`answers resource URIs with control characters or 10 KB long with -32602, the URI in data and the id (${era})`, rowsUnchanged(async () => {
        for (const [index, uri] of [CONTROL, LONG, `school://${host}/courses/${CONTROL}/syllabus`, `school://${host}/${LONG}`].entries()) {
          const error = expectRpcError(await send(era, index, 'resources/read', { uri }), { status: 200, code: -32602, id: index, message: /not found/ });
          expect(error.error.data?.uri).to.equal(uri);
        }
      }));

      it(`gives no completions for a prompt or template reference with control characters or 10 KB long (${era})`, rowsUnchanged(async () => {
        for (const [index, name] of [CONTROL, LONG].entries()) {
          for (const ref of [{ type: 'ref/prompt', name }, { type: 'ref/resource', uri: name }]) {
            const result = expectRpcResult<{ completion: { values: string[] } }>(await send(era, index, 'completion/complete', { ref, argument: { name, value: name } }), index);
            expect(result.completion.values).to.deep.equal([]);
          }
        }
      }));

      it(`answers a resource URI of another school on the same server with -32602 naming both hosts, anonymous or signed in (${era})`, rowsUnchanged(async () => {
        const otherHost = new URL(server.siteB.origin).host;
        for (const [index, path] of ['/profile', '/courses', `/courses/${enrolled}/syllabus`, '/me/courses', `/me/courses/${enrolled}/syllabus`].entries()) {
          const uri = `school://${otherHost}${path}`;
          for (const token of [undefined, member]) {
            const error = expectRpcError(await send(era, index, 'resources/read', { uri }, token === undefined ? {} : { token }), { status: 200, code: -32602, id: index });
            expect(error.error.data?.uri).to.equal(uri);
            expect(error.error.message).to.include(otherHost).and.to.include(host);
          }
        }
      }));

      it(`reads only the caller's own data: no URI names a member, and a course the member is not enrolled in is -32602 (${era})`, rowsUnchanged(async () => {
        // The caller's own course reads (the control case).
        const own = expectRpcResult<{ contents: Array<{ uri: string; text: string }> }>(await send(era, 'own', 'resources/read', { uri: `school://${host}/me/courses/${enrolled}/syllabus` }, { token: member }), 'own');
        expect(JSON.parse(own.contents[0]?.text ?? '{}')).to.have.nested.property('course.slug', enrolled);
        const refused: string[] = [
          `school://${host}/me/courses/${notEnrolled}/syllabus`,
          `school://${host}/members/${mia.id}/courses`,
          `school://${host}/users/1/me/courses`,
          `school://${host}/me/courses?user=1`,
          `school://${host}/me/courses#1`,
          `school://${host}/me/../me/courses/${notEnrolled}/syllabus`,
          `school://${host}/me/courses/${encodeURIComponent(`${enrolled}/../${notEnrolled}`)}/syllabus`,
        ];
        for (const [index, uri] of refused.entries()) {
          const error = expectRpcError(await send(era, index, 'resources/read', { uri }, { token: member }), { status: 200, code: -32602, id: index, message: /not found/ });
          expect(error.error.data?.uri).to.equal(uri);
        }
      }));
    }

    it('answers a 2026-07-28 control-character name only through the Base64 form of Mcp-Name (a raw one cannot be a header)', rowsUnchanged(async () => {
      const encoded = mcpNameOf('tools/call', { name: CONTROL });
      expect(encoded).to.match(/^=\?base64\?/);
      expectRpcError(await send(MODERN, 'ctl', 'tools/call', { name: CONTROL, arguments: {} }), { status: 200, code: -32602, id: 'ctl', message: /unknown tool/i });
    }));
  });

  describe('member operations without a token', () => {
    for (const era of MCP_ERAS) {
      it(`answers a member tool, resource or prompt called anonymously with 401, the challenge that starts OAuth, and a JSON-RPC error with the id (${era})`, rowsUnchanged(async () => {
        const operations: Array<[string, Record<string, unknown>]> = [
          ['tools/call', { name: 'list_my_courses', arguments: {} }],
          ['resources/read', { uri: `school://${host}/me/courses` }],
          ['prompts/get', { name: 'weekly_study_plan', arguments: {} }],
        ];
        for (const [index, [method, params]] of operations.entries()) {
          const answer = await send(era, `anonymous-${index}`, method, params);
          expectRpcError(answer, { status: 401, code: -32000, id: `anonymous-${index}`, message: /signed-in member/ });
          expect(answer.headers['www-authenticate']).to.include(`resource_metadata="${origin}/.well-known/oauth-protected-resource"`).and.to.include('scope="account:read"');
        }
      }));
    }
  });

  describe('foreign Origin and Host (DNS-rebinding protection)', () => {
    for (const era of MCP_ERAS) {
      it(`answers a foreign Origin, another school's origin or "null" with 403 and the id, before any member data is read (${era})`, rowsUnchanged(async () => {
        for (const [index, foreign] of ['http://evil.example', server.siteB.origin, 'null', `${origin}.evil.example`].entries()) {
          for (const token of [undefined, member]) {
            const call = await send(era, `origin-${index}`, 'tools/call', { name: 'list_my_courses', arguments: {} }, { headers: { origin: foreign }, ...(token === undefined ? {} : { token }) });
            expectRpcError(call, { status: 403, code: -32000, id: `origin-${index}`, message: /Origin/ });
          }
        }
        // The school's own Origin is served.
        expectRpcResult(await send(era, 'own-origin', 'tools/list', {}, { headers: { origin } }), 'own-origin');
      }));

      it(`answers a Host that resolves to the school but is not its host as written with 403 and the id; a Host of no school with 404 (${era})`, rowsUnchanged(async () => {
        expectRpcError(await send(era, 'host', 'tools/list', {}, { host: host.toUpperCase() }), { status: 403, code: -32000, id: 'host', message: /Host/ });
        const nowhere = await send(era, 'nowhere', 'tools/list', {}, { host: `attacker.example:${server.port}` });
        expect(nowhere.status).to.equal(404);
        expectNoLeak(nowhere);
        expect((JSON.parse(nowhere.text) as { error: string }).error).to.equal('site_not_found');
      }));
    }
  });
});
