import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createSite, type Site } from '../src/sites/sites.js';
import { PROJECT_ROOT } from '../src/shared/paths.js';
import { tracingWanted } from '../src/telemetry/wanted.js';
import { authorizeViaPages, createPkcePair } from './support/authorize-flow.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { TEST_KEY_ENCRYPTION_ENV } from './support/key-encryption.js';
import { gql } from './support/member-api.js';
import { makeClient, makeUser, PASSWORD, postForm, REDIRECT_URI } from './support/oauth-fixtures.js';
import { freePort } from './support/processes.js';

/**
 * OpenTelemetry tracing end to end: the real entry point (`npm start` minus the build) with the OTLP settings pointing
 * at a receiver in this process (OTLP/HTTP with JSON bodies), one sign-in through the pages, one code exchange, one
 * refresh and one member GraphQL query. The receiver must see the HTTP server spans, our own spans (token grants,
 * token verification, the GraphQL execution and its resolver group) and the database spans beneath them, in the
 * traces the access log names. With no OTEL_* setting, no module of the SDK is even loaded.
 */

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  scope: string;
  status?: { code?: number };
}

/** An OTLP/HTTP traces receiver (POST /v1/traces, JSON): every span it was sent, flattened. */
class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private readonly server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') this.receive(JSON.parse(body) as OtlpExport);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private receive(payload: OtlpExport): void {
    for (const resourceSpans of payload.resourceSpans ?? []) {
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          const attributes: ReceivedSpan['attributes'] = {};
          for (const attribute of span.attributes ?? []) attributes[attribute.key] = attribute.value.stringValue ?? attribute.value.intValue ?? attribute.value.boolValue;
          this.spans.push({ ...span, attributes, scope: scopeSpans.scope?.name ?? '' });
        }
      }
    }
  }

  inTrace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }
}

interface OtlpExport {
  resourceSpans?: Array<{ scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<Omit<ReceivedSpan, 'attributes' | 'scope'> & { attributes?: OtlpAttribute[] }> }> }>;
}

const SPAN_KIND_SERVER = 2;

interface RunningEntry {
  stdout: () => string;
  stop(): Promise<void>;
}

/** src/main.ts with the given environment, recording the modules it loads (test/support/trace-modules.ts). */
async function startMain(env: Record<string, string>, modulesFile: string): Promise<RunningEntry> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/support/trace-modules.ts', 'src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH, ...TEST_KEY_ENCRYPTION_ENV, SCHOOLGATE_TRACE_MODULES: modulesFile, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stderr}`)), 240_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('is listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}:\n${stderr}`)));
  });
  return {
    stdout: () => stdout,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The access-log line of the request with this X-Request-Id, once the child has written it. */
function accessLine(entry: RunningEntry, requestId: string | null): Promise<Record<string, unknown>> {
  return waitFor(`the access line of request ${String(requestId)}`, () => {
    for (const line of entry.stdout().split('\n')) {
      if (!line.startsWith('{')) continue;
      const logged = JSON.parse(line) as Record<string, unknown>;
      if (logged.msg === 'request' && logged.requestId === requestId) return logged;
    }
    return undefined;
  });
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Each span of `spans` except the root has its parent in the same trace. */
function expectConnected(spans: ReceivedSpan[]): void {
  const ids = new Set(spans.map((span) => span.spanId));
  for (const span of spans) {
    if (span.parentSpanId) expect(ids.has(span.parentSpanId), `parent of ${span.name}`).to.equal(true);
  }
}

/** Whether `span` descends from `ancestor` within `spans`. */
function descendsFrom(spans: ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  for (let at = span.parentSpanId ? byId.get(span.parentSpanId) : undefined; at; at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined) {
    if (at.spanId === ancestor.spanId) return true;
  }
  return false;
}

function loadedModules(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

describe('when tracing is on', () => {
  it('follows the standard OTEL_* variables', () => {
    expect(tracingWanted({})).to.equal(false);
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'schoolgate', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).to.equal(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.equal(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).to.equal(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).to.equal(false);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'console' })).to.equal(true);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.equal(false);
    expect(tracingWanted({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.equal(false);
    expect(tracingWanted({ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.equal(true);
  });
});

for (const kind of TEST_DATABASE_KINDS) {
  describe(`tracing with OpenTelemetry [${kind}]`, function () {
    let scratch: ScratchDatabase;
    let receiver: OtlpReceiver;
    let server: RunningEntry;
    let site: Site;
    let workDir: string;
    let modulesFile: string;
    let receiverUrl: string;

    before(async function () {
      this.timeout(300_000);
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-tracing-'));
      modulesFile = path.join(workDir, 'modules-traced.txt');
      scratch = await createScratchDatabase(kind);
      receiver = new OtlpReceiver();
      const endpoint = await receiver.listen();
      receiverUrl = endpoint;
      const port = await freePort();
      site = await createSite(scratch.db, { origin: `http://localhost:${port}`, name: `Traced School ${port}`, subdomain: `traced-${port}` });
      server = await startMain(
        {
          DATABASE_URL: scratch.url,
          PORT: String(port),
          LOG_LEVEL: 'info',
          SCHOOLGATE_DEMO: 'false',
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_BSP_SCHEDULE_DELAY: '100',
          OTEL_SERVICE_NAME: 'schoolgate-under-test',
        },
        modulesFile,
      );
    });

    after(async function () {
      this.timeout(60_000);
      await server?.stop();
      await receiver?.close();
      await scratch?.drop();
      if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
    });

    it('exports the spans of a sign-in, a code exchange, a refresh and a GraphQL query, with the trace ids in the access lines', async function () {
      this.timeout(120_000);
      const member = await makeUser(scratch.db, site, ['student'], 'Traced Member');
      const app = await makeClient(scratch.db, site, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'] });
      const pkce = createPkcePair();
      const { code } = await authorizeViaPages({ origin: site.origin, clientId: app.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid account:read', email: member.email, password: PASSWORD, codeChallenge: pkce.challenge });

      const tokenUrl = `${site.origin}/api/oauth/token`;
      const exchanged = await postForm(tokenUrl, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: pkce.verifier, client_id: app.client.clientId, resource: site.origin });
      expect(exchanged.status, JSON.stringify(exchanged.body)).to.equal(200);
      const refreshed = await postForm(tokenUrl, { grant_type: 'refresh_token', refresh_token: String(exchanged.body.refresh_token), client_id: app.client.clientId });
      expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
      const query = await gql<{ viewer: { id: string } }>(site.origin, 'A', String(refreshed.body.access_token), 'query Traced { viewer { id email enrolledCourses(first: 5) { nodes { id } } } }');
      expect(query.status, JSON.stringify(query.errors)).to.equal(200);
      expect(query.data?.viewer.id).to.equal(String(member.id));

      // Each answer names its trace in the access log; the receiver gets the trace within the batch delay.
      const traceOf = async (requestId: string | null) => {
        const line = await accessLine(server, requestId);
        expect(line.traceId, 'traceId in the access line').to.match(/^[0-9a-f]{32}$/);
        expect(line.spanId, 'spanId in the access line').to.match(/^[0-9a-f]{16}$/);
        return { traceId: line.traceId as string, spanId: line.spanId as string };
      };
      const exchange = await traceOf(exchanged.headers.get('x-request-id'));
      const refresh = await traceOf(refreshed.headers.get('x-request-id'));
      const graphql = await traceOf(query.headers.get('x-request-id'));
      expect(new Set([exchange.traceId, refresh.traceId, graphql.traceId]).size).to.equal(3);

      for (const { traceId, spanId } of [exchange, refresh, graphql]) {
        await waitFor(`the HTTP server span of trace ${traceId}`, () => receiver.inTrace(traceId).find((span) => span.kind === SPAN_KIND_SERVER));
        const server = receiver.inTrace(traceId).find((span) => span.kind === SPAN_KIND_SERVER);
        // The access line's span is the request's HTTP server span, the root of the trace.
        expect(server?.spanId).to.equal(spanId);
        expect(server?.parentSpanId || undefined).to.equal(undefined);
        expect(server?.scope).to.equal('@opentelemetry/instrumentation-http');
      }

      // The code exchange and the refresh: a token grant span each, under the HTTP span, with the database beneath it.
      for (const [{ traceId }, grantType] of [
        [exchange, 'authorization_code'],
        [refresh, 'refresh_token'],
      ] as const) {
        const spans = await waitFor(`the token grant of trace ${traceId}`, () => {
          const found = receiver.inTrace(traceId);
          return found.some((span) => span.name === 'oauth2.token') ? found : undefined;
        });
        expectConnected(spans);
        const grant = spans.find((span) => span.name === 'oauth2.token');
        expect(grant?.attributes).to.include({ 'oauth2.grant_type': grantType, 'oauth2.client_id': app.client.clientId, 'oauth2.outcome': 'issued' });
        const http = spans.find((span) => span.kind === SPAN_KIND_SERVER);
        expect(http && grant && descendsFrom(spans, grant, http)).to.equal(true);
        // Named after its route template, as the HTTP semantic conventions name server spans.
        expect(http?.name).to.equal('POST /api/oauth/token');
        expect(http?.attributes['http.route']).to.equal('/api/oauth/token');
        const queries = spans.filter((span) => span.scope === '@opentelemetry/instrumentation-knex' && grant && descendsFrom(spans, span, grant));
        expect(queries.length, 'knex spans under the grant').to.be.greaterThan(0);
        if (kind === 'mysql') {
          const driver = spans.filter((span) => span.scope === '@opentelemetry/instrumentation-mysql2');
          expect(driver.length, 'mysql2 spans').to.be.greaterThan(0);
          expect(driver.every((span) => grant && descendsFrom(spans, span, http!))).to.equal(true);
        }
      }

      // The GraphQL query: the token verification, the execution, its resolver group, and their database spans.
      const spans = await waitFor('the GraphQL spans', () => {
        const found = receiver.inTrace(graphql.traceId);
        return found.some((span) => span.name === 'query Traced') && found.some((span) => span.name === 'graphql.resolve Viewer.enrolledCourses') ? found : undefined;
      });
      expectConnected(spans);
      const http = spans.find((span) => span.kind === SPAN_KIND_SERVER)!;
      const verification = spans.find((span) => span.name === 'oauth2.verify_token');
      expect(verification?.attributes).to.include({ 'oauth2.token.scheme': 'Bearer', 'oauth2.client_id': app.client.clientId });
      expect(descendsFrom(spans, verification!, http)).to.equal(true);
      expect(spans.some((span) => span.scope === '@opentelemetry/instrumentation-knex' && descendsFrom(spans, span, verification!)), 'the token read').to.equal(true);
      const execution = spans.find((span) => span.name === 'query Traced')!;
      expect(execution.attributes).to.include({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'Traced' });
      expect(descendsFrom(spans, execution, http)).to.equal(true);
      const viewer = spans.find((span) => span.name === 'graphql.resolve Query.viewer')!;
      expect(descendsFrom(spans, viewer, execution)).to.equal(true);
      const courses = spans.find((span) => span.name === 'graphql.resolve Viewer.enrolledCourses')!;
      expect(courses.attributes).to.include({ 'graphql.field.name': 'enrolledCourses', 'graphql.field.path': 'viewer.enrolledCourses' });
      expect(descendsFrom(spans, courses, execution)).to.equal(true);
      expect(spans.some((span) => span.scope === '@opentelemetry/instrumentation-knex' && descendsFrom(spans, span, courses)), 'the courses query').to.equal(true);
      // Leaves get no span of their own.
      expect(spans.some((span) => span.name.endsWith('Viewer.email'))).to.equal(false);

      // No credential and no personal data reaches the collector: SQL is reported with placeholders or masked.
      const exported = JSON.stringify(receiver.spans);
      for (const secret of [member.email, code, pkce.verifier, exchanged.body.access_token, exchanged.body.refresh_token, refreshed.body.access_token, refreshed.body.refresh_token, PASSWORD]) {
        expect(exported.includes(String(secret)), 'a secret in the spans').to.equal(false);
      }
      // Only requests start traces: start-up's migrations and schema, and the jobs, send no root spans of their own.
      expect(receiver.spans.filter((span) => !span.parentSpanId && span.kind !== SPAN_KIND_SERVER).map((span) => span.name)).to.deep.equal([]);
      expect(loadedModules(modulesFile).some((url) => url.includes('/@opentelemetry/sdk-node/'))).to.equal(true);
    });

    it('exports the spans still buffered when the server stops', async function () {
      this.timeout(300_000);
      const port = await freePort();
      const stoppingSite = await createSite(scratch.db, { origin: `http://localhost:${port}`, name: `Stopping School ${port}`, subdomain: `stopping-${port}` });
      // A batch delay far longer than the test: the span can only leave with the shutdown's flush.
      const stopping = await startMain(
        { DATABASE_URL: scratch.url, PORT: String(port), LOG_LEVEL: 'info', SCHOOLGATE_DEMO: 'false', SCHOOLGATE_DRAIN_SECONDS: '0', OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '600000' },
        path.join(workDir, 'modules-stopping.txt'),
      );
      let traceId: unknown;
      try {
        const answer = await fetch(`${stoppingSite.origin}/.well-known/openid-configuration`);
        expect(answer.status).to.equal(200);
        traceId = (await accessLine(stopping, answer.headers.get('x-request-id'))).traceId;
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(receiver.inTrace(String(traceId)), 'nothing exported before the stop').to.deep.equal([]);
      } finally {
        await stopping.stop();
      }
      expect(receiver.inTrace(String(traceId)).map((span) => span.name)).to.include('GET /.well-known/openid-configuration');
    });

    it('loads no module of the OpenTelemetry SDK and logs no trace ids when no OTEL_* variable is set', async function () {
      this.timeout(300_000);
      const untracedModules = path.join(workDir, 'modules-untraced.txt');
      const port = await freePort();
      const untracedSite = await createSite(scratch.db, { origin: `http://localhost:${port}`, name: `Untraced School ${port}`, subdomain: `untraced-${port}` });
      const untraced = await startMain({ DATABASE_URL: scratch.url, PORT: String(port), LOG_LEVEL: 'info', SCHOOLGATE_DEMO: 'false' }, untracedModules);
      try {
        const answer = await fetch(`${untracedSite.origin}/.well-known/openid-configuration`);
        expect(answer.status).to.equal(200);
        const line = await accessLine(untraced, answer.headers.get('x-request-id'));
        expect(line).not.to.have.property('traceId');
        expect(line).not.to.have.property('spanId');
      } finally {
        await untraced.stop();
      }
      const modules = loadedModules(untracedModules);
      expect(modules.some((url) => url.includes('/src/main.ts')), 'the module list was recorded').to.equal(true);
      const sdkModules = modules.filter((url) => /\/@opentelemetry\/(?!api\/)/.test(url) || url.includes('/src/telemetry/sdk.ts'));
      expect(sdkModules).to.deep.equal([]);
    });
  });
}
