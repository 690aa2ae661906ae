import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { exportJWK, generateKeyPair } from 'jose';
import { servedContract } from '../src/admin/contract.js';
import { runCli } from '../src/cli/program.js';
import type { ContractTestReport } from '../src/contract/contract-test/index.js';
import { authorizationServerMetadata } from '../src/oauth/discovery/authorization-server-metadata.js';
import { openidConfiguration } from '../src/oauth/discovery/openid-configuration.js';
import { protectedResourceMetadata } from '../src/oauth/discovery/protected-resource-metadata.js';
import type { Site } from '../src/sites/sites.js';
import { AdminApi, issueToken, setBeta } from './support/admin.js';
import { describeEachDatabase } from './support/databases.js';
import { memberToken } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';
import { runEntry } from './support/processes.js';
import { startTestServer, type TestServer } from './support/server.js';
import { variantProfile } from '../src/variant.js';

type Json = Record<string, unknown>;

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/** `schoolgate …` in this process, through the same runCli as bin/schoolgate.js, with stdout and stderr captured. */
async function inProcess(args: string[]): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await runCli(args);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
  }
}

async function jsonReport(args: string[], expectedCode: number): Promise<ContractTestReport> {
  const result = await inProcess(['contract-test', '--json', ...args]);
  expect(result.code, result.stdout + result.stderr).to.equal(expectedCode);
  return JSON.parse(result.stdout) as ContractTestReport;
}

function resultsOf(report: ContractTestReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.name, check.result]));
}

function failing(report: ContractTestReport): string[] {
  return report.checks.filter((check) => check.result === 'fail').map((check) => check.name);
}

function detailOf(report: ContractTestReport, name: string): string {
  return report.checks.find((check) => check.name === name)?.detail ?? `(no row ${name})`;
}

const ALL_CHECKS = [
  'openapi.document',
  'openapi.servers',
  'openapi.oauth2-flows',
  'openapi.scopes',
  'discovery.protected-resource',
  'discovery.authorization-server',
  'discovery.openid-configuration',
  'discovery.jwks',
  'graphql.endpoint',
  'graphql.audit',
  'graphql.viewer',
  'admin.no-token',
  'admin.getSchool',
  'admin.getMcpConnections',
  'admin.listOAuthApplications',
  'admin.member-token-refused',
];
const TOKEN_CHECKS = ['graphql.audit', 'graphql.viewer', 'admin.getSchool', 'admin.getMcpConnections', 'admin.listOAuthApplications', 'admin.member-token-refused'];

for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`schoolgate contract-test against a running server [variant ${variant}]`, (scratch) => {
    let server: TestServer;
    let operator: string;
    let member: string;
    let base: string;
    before(async function () {
      this.timeout(60000);
      server = await startTestServer(scratch(), { variant });
      base = server.siteA.origin;
      operator = (await issueToken(scratch().db, server.siteA)).token;
      member = await memberToken(scratch().db, server.siteA, await makeUser(scratch().db, server.siteA, ['student'], 'Contract Member'));
    });
    after(async () => server.stop());

    it('passes every check in process, printing one table row per check', async () => {
      const result = await inProcess(['contract-test', '--base-url', base, '--token', operator, '--member-token', member]);
      expect(result.code, result.stdout + result.stderr).to.equal(0);
      const rows = result.stdout.split('\n').filter((line) => /^[a-z]+\.[A-Za-z0-9.-]+\s+(PASS|FAIL|SKIP)\b/.test(line));
      expect(rows.map((row) => row.split(/\s+/)[0])).to.deep.equal(ALL_CHECKS);
      expect(rows.filter((row) => !/^\S+\s+PASS\s/.test(row)), result.stdout).to.deep.equal([]);
      expect(result.stdout).to.contain(`${ALL_CHECKS.length} passed, 0 failed, 0 skipped: OK`);
      expect(result.stdout).to.contain(variant === 'A' ? '/member/graphql (variant A)' : '/account/graphql (variant B)');
      expect(result.stderr).to.equal('');
    });

    it('--json prints one JSON document; the beta being off is a pass with a note', async () => {
      const report = await jsonReport(['--base-url', `${base}/`, '--token', operator, '--member-token', member], 0);
      expect(report).to.deep.include({ baseUrl: base, ok: true, counts: { pass: ALL_CHECKS.length, fail: 0, skip: 0 } });
      expect(report.checks.map((check) => Object.keys(check).sort())[0]).to.deep.equal(['detail', 'durationMs', 'group', 'name', 'result']);
      expect(detailOf(report, 'admin.listOAuthApplications')).to.contain('409 mcp_connections_disabled');
      expect(detailOf(report, 'graphql.audit')).to.match(/^61 graphql-http audits: 61 ok/);
    });

    it('validates the OAuth applications page against the contract once the beta is on', async () => {
      await setBeta(await AdminApi.connect(base, operator), true);
      try {
        const report = await jsonReport(['--base-url', base, '--token', operator], 0);
        expect(detailOf(report, 'admin.listOAuthApplications')).to.match(/→ 200, \d+ application\(s\) on the first page, matches the contract/);
      } finally {
        await setBeta(await AdminApi.connect(base, operator), false);
      }
    });

    it('skips, not fails, the checks whose token was not given', async () => {
      const report = await jsonReport(['--base-url', base], 0);
      const results = resultsOf(report);
      for (const name of ALL_CHECKS) expect(results[name], name).to.equal(TOKEN_CHECKS.includes(name) ? 'skip' : 'pass');
      expect(detailOf(report, 'admin.getSchool')).to.equal('needs --token');
      expect(detailOf(report, 'graphql.viewer')).to.equal('needs --member-token');
    });

    it('fails the rows a bad token reaches, and exits 1', async () => {
      const report = await jsonReport(['--base-url', base, '--token', 'not-a-token', '--member-token', 'not-a-token-either'], 1);
      expect(failing(report), JSON.stringify(report.checks)).to.deep.equal(['graphql.audit', 'graphql.viewer', 'admin.getSchool', 'admin.getMcpConnections', 'admin.listOAuthApplications']);
      expect(detailOf(report, 'admin.getSchool')).to.contain('→ 401');
      expect(detailOf(report, 'graphql.viewer')).to.contain('→ 401, expected 200');
      // A token the admin API refuses with a problem is what admin.member-token-refused wants.
      expect(resultsOf(report)['admin.member-token-refused']).to.equal('pass');
    });

    it('fails admin.member-token-refused when the "member" token is one the admin API accepts', async () => {
      const report = await jsonReport(['--base-url', base, '--member-token', operator], 1);
      expect(failing(report)).to.include('admin.member-token-refused');
      expect(detailOf(report, 'admin.member-token-refused')).to.contain('→ 200 with a member token, expected 401 or 403');
    });

    it('runs as a real process (tokens from the environment) and exits 0', async function () {
      this.timeout(60000);
      const result = await runEntry('src/cli/main.ts', ['contract-test', '--base-url', base, '--json'], { SCHOOLGATE_OPERATOR_TOKEN: operator, SCHOOLGATE_MEMBER_TOKEN: member }, { timeoutMs: 60000 });
      expect(result.code, result.stderr + result.stdout).to.equal(0);
      const report = JSON.parse(result.stdout) as ContractTestReport;
      expect(report.ok).to.equal(true);
      expect(report.counts).to.deep.equal({ pass: ALL_CHECKS.length, fail: 0, skip: 0 });
    });
  });
}

/**
 * A deployment stand-in on node:http serving the documents a correct server serves (built by the same functions), on
 * its own origin; each test breaks one thing and expects exactly the rows that depend on it to fail.
 */
interface Stub {
  origin: string;
  documents: Record<string, unknown>;
  /** Overrides for one path: status, headers and body (a string is sent as is). */
  routes: Map<string, { status: number; headers?: Record<string, string>; body?: unknown }>;
  /** Paths whose request is never answered. */
  hang: Set<string>;
  /** Back to the correct documents, no overrides. */
  reset(): void;
  close(): Promise<void>;
}

async function startStub(): Promise<Stub> {
  const { publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'stub-key', alg: 'ES256', use: 'sig' };
  const stub: Stub = { origin: '', documents: {}, routes: new Map(), hang: new Set(), reset: () => undefined, close: async () => undefined };
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? '/', stub.origin).pathname;
    if (stub.hang.has(path)) return;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body));
    };
    const challenge = { 'www-authenticate': `Bearer realm="${stub.origin}", resource_metadata="${stub.origin}/.well-known/oauth-protected-resource"` };
    const route = stub.routes.get(path);
    if (route) return send(route.status, route.body, route.headers);
    if (request.method === 'GET' && Object.hasOwn(stub.documents, path)) return send(200, stub.documents[path]);
    if (request.method === 'POST' && path === '/member/graphql') return send(401, { errors: [{ message: 'this endpoint needs an access token' }] }, challenge);
    if (path === '/api/admin/v1/school') {
      return send(401, { type: 'urn:schoolgate:problem:invalid_token', title: 'Invalid token', status: 401, code: 'invalid_token' }, { ...challenge, 'content-type': 'application/problem+json' });
    }
    return send(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const site = { origin: stub.origin, name: 'Stub School' } as Site;
  stub.reset = () => {
    stub.routes.clear();
    stub.hang.clear();
    stub.documents = {
      '/openapi.json': servedContract(stub.origin),
      '/.well-known/oauth-protected-resource': protectedResourceMetadata(site),
      '/.well-known/oauth-authorization-server': authorizationServerMetadata(site, variantProfile('A')),
      '/.well-known/openid-configuration': openidConfiguration(site, variantProfile('A')),
      '/.well-known/jwks.json': { keys: [jwk] },
    };
  };
  stub.reset();
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

describe('schoolgate contract-test against broken deployments', function () {
  this.timeout(120_000);
  let stub: Stub;
  before(async () => {
    stub = await startStub();
  });
  beforeEach(() => stub.reset());
  after(async () => stub.close());

  const document = (path: string) => stub.documents[path] as Json;
  const run = (code: number, ...extra: string[]) => jsonReport(['--base-url', stub.origin, ...extra], code);

  it('passes a stand-in that serves correct documents (so each failure below is the broken part alone)', async () => {
    const report = await run(0);
    expect(failing(report)).to.deep.equal([]);
  });

  it('a /openapi.json that is not valid OpenAPI 3.1 fails the document and every row that needs it', async () => {
    delete document('/openapi.json').info;
    const report = await run(1);
    expect(failing(report)).to.deep.equal(['openapi.document', 'openapi.servers', 'openapi.oauth2-flows', 'openapi.scopes', 'admin.no-token']);
    expect(detailOf(report, 'openapi.document')).to.contain('not a valid OpenAPI 3.1 document').and.contain('info');
    expect(detailOf(report, 'openapi.servers')).to.contain('needs the served contract');
  });

  it('an OpenAPI 3.0 document, or one that is not JSON, fails openapi.document', async () => {
    document('/openapi.json').openapi = '3.0.3';
    expect(detailOf(await run(1), 'openapi.document')).to.contain('declares openapi "3.0.3", expected 3.1.x');
    stub.routes.set('/openapi.json', { status: 200, body: '<html>' });
    expect(detailOf(await run(1), 'openapi.document')).to.contain('the body is not JSON');
  });

  it('servers, flow URLs on another origin and an operation with two scopes each fail their own row', async () => {
    const openapi = document('/openapi.json');
    openapi.servers = [{ url: 'https://elsewhere.example/api/admin/v1' }];
    const flows = (((openapi.components as Json).securitySchemes as Json).oauth2 as Json).flows as Record<string, Json>;
    (flows.authorizationCode as Json).tokenUrl = 'https://elsewhere.example/token';
    ((((openapi.paths as Json)['/school'] as Json).get as Json).security as unknown[]) = [{ oauth2: ['school:read', 'school:write'] }];
    const report = await run(1);
    expect(failing(report)).to.deep.equal(['openapi.servers', 'openapi.oauth2-flows', 'openapi.scopes']);
    expect(detailOf(report, 'openapi.servers')).to.contain('servers[0].url is "https://elsewhere.example/api/admin/v1"');
    expect(detailOf(report, 'openapi.oauth2-flows')).to.contain('oauth2.authorizationCode.tokenUrl');
    expect(detailOf(report, 'openapi.scopes')).to.contain('getSchool (GET /school) requires ["school:read","school:write"], not exactly one scope');
  });

  it('a wrong issuer, missing S256 and missing scopes fail discovery.authorization-server, naming each', async () => {
    const metadata = document('/.well-known/oauth-authorization-server');
    metadata.issuer = `${stub.origin}/`;
    metadata.code_challenge_methods_supported = ['plain'];
    metadata.scopes_supported = ['openid'];
    delete metadata.client_id_metadata_document_supported;
    const report = await run(1);
    expect(failing(report)).to.deep.equal(['discovery.authorization-server']);
    const detail = detailOf(report, 'discovery.authorization-server');
    expect(detail).to.contain(`issuer is "${stub.origin}/", expected ${stub.origin}`);
    expect(detail).to.contain('code_challenge_methods_supported lacks S256');
    expect(detail).to.contain('scopes_supported lacks profile, email');
    expect(detail).to.contain('client_id_metadata_document_supported is undefined, expected true');
  });

  it('a protected resource for another origin and an OIDC document without ES256 fail their rows', async () => {
    document('/.well-known/oauth-protected-resource').resource = 'https://elsewhere.example';
    document('/.well-known/openid-configuration').id_token_signing_alg_values_supported = ['RS256'];
    const report = await run(1);
    expect(failing(report)).to.deep.equal(['discovery.protected-resource', 'discovery.openid-configuration']);
    expect(detailOf(report, 'discovery.openid-configuration')).to.contain('id_token_signing_alg_values_supported lacks ES256');
  });

  it('a JWKS with an RSA key, no kid or a private part fails discovery.jwks', async () => {
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    const ec = await generateKeyPair('ES256', { extractable: true });
    stub.documents['/.well-known/jwks.json'] = { keys: [{ ...(await exportJWK(publicKey)), kid: 'rsa' }, { ...(await exportJWK(ec.privateKey)) }] };
    const report = await run(1);
    expect(failing(report)).to.deep.equal(['discovery.jwks']);
    const detail = detailOf(report, 'discovery.jwks');
    expect(detail).to.contain('rsa is "RSA"/undefined, expected EC/P-256');
    expect(detail).to.contain('keys[1] has no kid');
    expect(detail).to.contain('publishes its private part');
  });

  it('no member GraphQL endpoint, or one that lets anonymous requests in, fails graphql.endpoint', async () => {
    stub.routes.set('/member/graphql', { status: 404, body: { error: 'not_found' } });
    expect(detailOf(await run(1), 'graphql.endpoint')).to.contain('neither /member/graphql nor /account/graphql exists');
    stub.routes.set('/member/graphql', { status: 200, body: { data: { __typename: 'Query' } } });
    expect(detailOf(await run(1), 'graphql.endpoint')).to.contain('POST /member/graphql → 200, expected 401');
  });

  it('an admin API that answers without a token fails admin.no-token', async () => {
    stub.routes.set('/api/admin/v1/school', { status: 401, body: { error: 'invalid_token' }, headers: { 'www-authenticate': 'Bearer' } });
    const report = await run(1);
    expect(failing(report)).to.deep.equal(['admin.no-token']);
    expect(detailOf(report, 'admin.no-token')).to.contain('breaks the contract').and.contain('application/problem+json');
  });

  it('a request that gets no answer fails with the deadline in the detail', async () => {
    stub.hang.add('/.well-known/openid-configuration');
    const report = await run(1, '--timeout', '300');
    expect(failing(report)).to.deep.equal(['discovery.openid-configuration']);
    expect(detailOf(report, 'discovery.openid-configuration')).to.contain('no answer within 300 ms');
  });

  it('an unreachable base URL fails every check that ran, and exits 1 (text table on stdout)', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await inProcess(['contract-test', '--base-url', `http://127.0.0.1:${port}`]);
    expect(result.code).to.equal(1);
    expect(result.stdout).to.contain('openapi.document').and.contain('FAIL').and.contain('ECONNREFUSED');
    expect(result.stdout).to.match(/0 passed, 10 failed, 6 skipped: FAILED/);
  });

  it('exits 2 on usage errors: no --base-url, a base URL that is not http(s), a bad timeout', async () => {
    const missing = await inProcess(['contract-test']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.contain("required option '--base-url <url>' not specified");
    const notHttp = await inProcess(['contract-test', '--base-url', 'ftp://school.example']);
    expect(notHttp.code).to.equal(2);
    expect(notHttp.stderr).to.contain('--base-url must be an http or https URL');
    const json = await inProcess(['--json', 'contract-test', '--base-url', 'not a url']);
    expect(json.code).to.equal(2);
    expect(JSON.parse(json.stdout)).to.include({ error: 'invalid_argument' });
    expect((await inProcess(['contract-test', '--base-url', stub.origin, '--timeout', '0'])).code).to.equal(2);
  });

  it('--help describes the command and exits 0', async () => {
    const result = await inProcess(['contract-test', '--help']);
    expect(result.code).to.equal(0);
    expect(result.stdout).to.contain('Usage: schoolgate contract-test').and.contain('--member-token');
  });
});
