/**
 * Property-based fuzzing of every interface with hostile requests (fast-check): the token, revocation, registration,
 * userinfo and authorization endpoints, the member GraphQL API, /mcp, the admin API, and raw HTTP/1.1 abuse of their
 * paths. For every request, on both stores:
 *
 * - the answer is not a 5xx (and there is one), nor at /mcp a JSON-RPC internal error (-32603), its 5xx;
 * - it comes within 2 s (a request slow once is re-sent; slow every time fails);
 * - nothing in it (headers, body) is a stack trace or SQL/driver text the server made up (echoes of the request
 *   are blanked out first);
 * - it has the error format of its interface: OAuth JSON errors, GraphQL-over-HTTP JSON, JSON-RPC, problem+json for
 *   the admin API, HTML pages or redirects for the authorization endpoint;
 * - the row count of every table is what it was, unless the request was a successful write (a 2xx to a non-GET of
 *   the admin API, the token endpoint or a GraphQL mutation of the write-scoped token). Every generated
 *   authorization request is invalid by construction, so none may leave a row behind.
 *
 * A failing request is shrunk by fast-check to a minimal one; each family keeps looking after a failure, so the
 * report lists every distinct failure (family, check, route), each with the command that replays it. The figures
 * (requests per family, statuses, p99 and max latency, seed and runs) are printed after each store.
 *
 * `npm run test:fuzz` runs this file alone (test/fuzz/.mocharc.json; the main suite's `*.test.ts` glob leaves it
 * out). Defaults: seed 20261124 and 10,000 generated requests per store, so 20,000 on the two stores, plus shrinking
 * and re-sends. FUZZ_SEED and FUZZ_RUNS (generated requests per store) override them, FUZZ_ONLY=admin,mcp runs some
 * families only, SCHOOLGATE_TEST_DATABASES=sqlite one store, FUZZ_TRACE=1 prints every request and answer.
 */
import { expect } from 'chai';
import type fc from 'fast-check';
import { adminRequests } from './families/admin.js';
import { graphqlRequests } from './families/graphql.js';
import { logoutRequests } from './families/logout.js';
import { mcpRequests } from './families/mcp.js';
import { authorizeRequests, registrationRequests, revocationRequests, tokenRequests, userinfoRequests } from './families/oauth.js';
import { transportRequests } from './families/transport.js';
import { startFuzzServer, type FuzzFixtures } from './support/fixtures.js';
import { formatViolation, jsonRpcInternalError, leakViolations } from './support/checks.js';
import { closeClient, type Family, type FuzzRequest, type FuzzResponse } from './support/http-client.js';
import { rowCounter, tableNames } from './support/row-counts.js';
import { describeFailure, FuzzRunner, percentile, SLOW_MS, type Failure } from './support/runner.js';
import { describeEachDatabase } from '../support/databases.js';

const DEFAULT_SEED = 20_261_124;
const DEFAULT_RUNS = 10_000;

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return value;
}

const SEED = positiveInteger('FUZZ_SEED', DEFAULT_SEED);
/** Generated requests per store, shared out by weight; shrinking and re-sends come on top. */
const RUNS = positiveInteger('FUZZ_RUNS', DEFAULT_RUNS);

/**
 * The families in the order they run, with their share of the runs. The admin family runs last: its full-scope
 * operator token may delete or change the demo school's rows the other families read.
 */
const FAMILIES: ReadonlyArray<{ family: Family; weight: number; title: string; build: (fx: FuzzFixtures) => fc.Arbitrary<FuzzRequest> }> = [
  { family: 'token', weight: 13, title: 'POST /api/oauth/token', build: tokenRequests },
  { family: 'revocation', weight: 8, title: 'POST /api/oauth/revoke', build: revocationRequests },
  { family: 'registration', weight: 7, title: 'POST /api/oauth/register', build: registrationRequests },
  { family: 'userinfo', weight: 7, title: 'GET|POST /api/oauth/userinfo', build: userinfoRequests },
  { family: 'authorize', weight: 12, title: 'GET /oauth/authorize (invalid requests only)', build: authorizeRequests },
  { family: 'graphql', weight: 16, title: `the member GraphQL API`, build: graphqlRequests },
  { family: 'mcp', weight: 14, title: '/mcp, both protocol eras', build: mcpRequests },
  { family: 'transport', weight: 5, title: 'raw HTTP/1.1 abuse of every path', build: transportRequests },
  { family: 'admin', weight: 18, title: 'the admin API', build: adminRequests },
  // Last, so the families before it keep their seeds; it reads no row the admin family may change.
  { family: 'logout', weight: 5, title: 'GET|POST /oauth/logout and its confirmation (no session)', build: logoutRequests },
];
const TOTAL_WEIGHT = FAMILIES.reduce((sum, entry) => sum + entry.weight, 0);
/** FUZZ_ONLY=admin,mcp runs some families only (their shares stay what they are in a full run). */
const ONLY = (process.env.FUZZ_ONLY ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');

function runsOf(weight: number): number {
  return RUNS === 0 ? 0 : Math.max(1, Math.round((RUNS * weight) / TOTAL_WEIGHT));
}

/** The checks themselves, on made-up answers: they must see what they look for, and not what the request echoes. */
describe('fuzz: the answer checks', () => {
  const request: FuzzRequest = { family: 'registration', route: 'POST /api/oauth/register', label: 'check', method: 'POST', target: '/api/oauth/register', headers: [['Content-Type', 'application/json']], body: Buffer.from(JSON.stringify({ client_name: "x' UNION SELECT password FROM users --" })), writes: 'never' };
  const answer = (status: number, body: unknown, contentType = 'application/json; charset=utf-8'): FuzzResponse => ({ status, headers: { 'content-type': contentType }, text: typeof body === 'string' ? body : JSON.stringify(body), elapsedMs: 1, requestId: 'r' });

  it('finds stack traces and SQL the server wrote, and ignores what the request carried', () => {
    const stack = answer(400, { error: 'invalid_request', error_description: 'TypeError: x is undefined\n    at readForm (/work/main/src/http/form.ts:12:5)\n    at async next (node:internal/x:1:1)' });
    expect(leakViolations(request, stack).map((violation) => violation.check)).to.include('stack-trace');
    const sql = answer(400, { error: 'invalid_request', error_description: 'select `id` from `oauth_clients` where `client_id` = ? - SQLITE_ERROR: no such column' });
    expect(leakViolations(request, sql).map((violation) => violation.check)).to.include('sql');
    const echo = answer(400, { error: 'invalid_client_metadata', error_description: `client_name "x' UNION SELECT password FROM users --" is not a known vendor platform` });
    expect(leakViolations(request, echo)).to.deep.equal([]);
  });

  it('knows the error format of each interface', () => {
    expect(formatViolation('registration', request, answer(400, { error: 'invalid_request', error_description: 'no' }))).to.equal(null);
    expect(formatViolation('registration', request, answer(400, '<h1>Bad</h1>', 'text/html'))).to.not.equal(null);
    expect(formatViolation('admin', request, answer(404, { type: 'urn:schoolgate:problem:not_found', title: 'Not Found', status: 404, code: 'not_found' }, 'application/problem+json'))).to.equal(null);
    expect(formatViolation('admin', request, answer(404, { error: 'not_found' }))).to.not.equal(null);
    expect(formatViolation('graphql', request, answer(415, '', 'text/plain; charset=utf-8'))).to.not.equal(null);
    expect(formatViolation('mcp', request, answer(400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }))).to.equal(null);
  });

  it('finds a JSON-RPC internal error at /mcp, in one answer, a batch or an SSE event, and nothing else', () => {
    const internal = { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: 1 };
    const invalid = { jsonrpc: '2.0', error: { code: -32602, message: 'Invalid params' }, id: 2 };
    expect(jsonRpcInternalError('mcp', answer(200, internal))?.check).to.equal('server-error');
    expect(jsonRpcInternalError('mcp', answer(200, [invalid, internal]))?.check).to.equal('server-error');
    expect(jsonRpcInternalError('mcp', answer(200, `event: message\ndata: ${JSON.stringify(internal)}\n\n`, 'text/event-stream'))?.check).to.equal('server-error');
    expect(jsonRpcInternalError('mcp', answer(200, invalid))).to.equal(null);
    expect(jsonRpcInternalError('graphql', answer(200, internal))).to.equal(null);
  });
});

const allFailures: Failure[] = [];
const summaries: string[] = [];
let requestsInAll = 0;

function pad(value: string | number, width: number): string {
  return String(value).padStart(width);
}

function figuresTable(store: string, runner: FuzzRunner, elapsedMs: number, tableCount: number): string {
  const lines = [`fuzz figures [${store}]: seed ${SEED}, ${RUNS} runs requested, ${tableCount} tables counted around every request, ${(elapsedMs / 1000).toFixed(1)} s`];
  lines.push(`  ${'family'.padEnd(13)}${pad('runs', 7)}${pad('requests', 10)}${pad('2xx', 7)}${pad('3xx', 6)}${pad('4xx', 7)}${pad('5xx', 6)}${pad('none', 6)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('max ms', 9)}`);
  const histogram = new Map<number, number>();
  let requests = 0;
  let runs = 0;
  const latencies: number[] = [];
  for (const { family } of FAMILIES) {
    const figures = runner.figures.get(family);
    if (!figures) continue;
    const byClass = (low: number) => [...figures.statuses].filter(([status]) => status >= low && status < low + 100).reduce((sum, [, count]) => sum + count, 0);
    for (const [status, count] of figures.statuses) histogram.set(status, (histogram.get(status) ?? 0) + count);
    requests += figures.requests;
    runs += figures.runs;
    latencies.push(...figures.latencies);
    lines.push(
      `  ${family.padEnd(13)}${pad(figures.runs, 7)}${pad(figures.requests, 10)}${pad(byClass(200), 7)}${pad(byClass(300), 6)}${pad(byClass(400), 7)}${pad(byClass(500), 6)}${pad(figures.noAnswer, 6)}${pad(percentile(figures.latencies, 50).toFixed(1), 9)}${pad(percentile(figures.latencies, 99).toFixed(1), 9)}${pad(Math.max(0, ...figures.latencies).toFixed(1), 9)}`,
    );
  }
  lines.push(`  ${'all'.padEnd(13)}${pad(runs, 7)}${pad(requests, 10)}   p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(0, ...latencies).toFixed(1)} ms (limit ${SLOW_MS} ms)`);
  lines.push(`  statuses: ${[...histogram].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(' ')}`);
  lines.push(`  failures: ${runner.failures.length}${runner.failures.length > 0 ? ` (${runner.failures.map((failure) => `${failure.family}/${failure.check}`).join(', ')})` : ''}`);
  return lines.join('\n');
}

describeEachDatabase('fuzz: hostile requests to every interface', (scratch) => {
  let fx: FuzzFixtures;
  let runner: FuzzRunner;
  let started = 0;
  let tableCount = 0;

  before(async function () {
    this.timeout(180_000);
    fx = await startFuzzServer(scratch());
    const tables = await tableNames(scratch().db, scratch().kind);
    tableCount = tables.length;
    runner = new FuzzRunner(scratch().kind, fx.target, rowCounter(scratch().db, scratch().kind, tables), fx.errorLog);
    started = performance.now();
  });

  after(async function () {
    this.timeout(60_000);
    if (runner) {
      const summary = figuresTable(scratch().kind, runner, performance.now() - started, tableCount);
      requestsInAll += [...runner.figures.values()].reduce((sum, figures) => sum + figures.requests, 0);
      summaries.push(summary);
      console.log(`\n${summary}\n`);
    }
    closeClient();
    await fx?.running.stop(1000);
  });

  FAMILIES.forEach(({ family, title, build }, index) => {
    if (ONLY.length > 0 && !ONLY.includes(family)) return;
    it(`${family}: ${title} — ${runsOf(FAMILIES[index]?.weight ?? 1)} generated requests, no 5xx, < ${SLOW_MS} ms, no stack trace or SQL, its error format, row counts unchanged unless a write succeeded`, async function () {
      this.timeout(0);
      const replay = `SCHOOLGATE_TEST_DATABASES=${scratch().kind} FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} FUZZ_ONLY=${family} npm run test:fuzz`;
      await runner.runFamily(family, build(fx), runsOf(FAMILIES[index]?.weight ?? 1), SEED + index * 1_000_003, replay);
      const failures = runner.failures.filter((failure) => failure.family === family);
      allFailures.push(...failures);
      expect(failures.length, `\n${failures.map(describeFailure).join('\n\n')}\n`).to.equal(0);
    });
  });
});

after(function () {
  if (summaries.length > 1) console.log(`fuzz: ${summaries.length} stores, ${requestsInAll} requests and ${allFailures.length} distinct failures in all, seed ${SEED}, ${RUNS} runs per store`);
});
