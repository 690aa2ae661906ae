import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { validate, compileErrors } from '@readme/openapi-parser';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { readContract, readOperationPolicies } from '../src/admin/contract.js';
import { ADMIN_HANDLERS } from '../src/admin/handlers/index.js';
import { IDENTITY_SCOPES, isScope, scopesForAudience } from '../src/clients/scopes.js';
import { PROJECT_ROOT } from '../src/shared/paths.js';
import { createSite } from '../src/sites/sites.js';
import { AdminApi } from './support/admin.js';
import { useAdminServer } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';

type Json = Record<string, unknown>;

/** GET a path of the test server under another Host (fetch cannot set Host). */
function getWithHost(port: number, host: string, pathname: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: pathname, headers: { host } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
}

function runRedoclyLint(file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const cli = path.join(PROJECT_ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    const child = spawn(process.execPath, [cli, 'lint', '--config', path.join(PROJECT_ROOT, 'openapi/redocly.yaml'), '--format=stylish', file], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('admin API contract (openapi/admin.yaml)', () => {
  it('names exactly one operator scope per operation, and every operation has a handler', () => {
    const policies = readOperationPolicies(readContract());
    expect([...policies.keys()].sort()).to.deep.equal(Object.keys(ADMIN_HANDLERS).sort());
    for (const policy of policies.values()) {
      expect(policy.scope, policy.operationId).to.match(/^[a-z_]+:(read|write)$/);
      expect(policy.scope, policy.operationId).to.not.match(/^account:/);
      // A resource whose scope table row has no `:read` (only `storage:write`) is read with its `:write` scope.
      const readScopeExists = isScope(policy.scope.replace(/:write$/, ':read'));
      expect(policy.scope.endsWith(':read'), `${policy.operationId} reads with :read, changes with :write`).to.equal(policy.method === 'get' && readScopeExists);
    }
    expect([...policies.values()].filter((policy) => policy.feature === 'mcp_connections').map((policy) => policy.operationId)).to.have.members([
      'listOAuthApplications',
      'createOAuthApplication',
      'getOAuthApplication',
      'updateOAuthApplication',
      'deleteOAuthApplication',
      'rotateOAuthApplicationSecret',
      'revokeOAuthApplicationTokens',
      'reviewOAuthApplication',
      'listOAuthApplicationGrants',
      'listTrustedDocuments',
      'publishTrustedDocuments',
      'deleteTrustedDocument',
    ]);
  });

  it('gates at least one operation with every operator scope of the spec table (spec: Scopes)', () => {
    const gated = new Set([...readOperationPolicies(readContract()).values()].map((policy) => policy.scope));
    const operatorScopes = scopesForAudience('operator').filter((scope) => !IDENTITY_SCOPES.includes(scope));
    expect(operatorScopes).to.have.length(33);
    expect(operatorScopes.filter((scope) => !gated.has(scope)), 'scopes no operation needs').to.deep.equal([]);
  });

  it("passes openapi-backend's full strict init: the 3.0-compatible subset, every request validator compiles (the server starts in quick mode)", async function () {
    this.timeout(60_000);
    const api = new OpenAPIBackend({
      definition: readContract() as unknown as Document,
      strict: true,
      apiRoot: '/api/admin/v1',
      coerceTypes: true,
      ajvOpts: { allErrors: true },
      customizeAjv: (ajv) => {
        addFormats.default(ajv);
        return ajv;
      },
    });
    await api.init();
    expect(api.initialized).to.equal(true);
  });

  it('refuses to start with an operation that needs no scope', () => {
    const document = readContract();
    const school = (document.paths as Record<string, Json>)['/school'] as Json;
    delete (school.get as Json).security;
    expect(() => readOperationPolicies(document)).to.throw(/getSchool .* exactly one security requirement/);
  });
});

describeEachDatabase('admin API: the served /openapi.json', (scratch) => {
  const admin = useAdminServer(scratch);
  let served: Json;

  before(async () => {
    const response = await fetch(`${admin.origin}/openapi.json`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    served = (await response.json()) as Json;
  });

  it('validates as OpenAPI 3.1 with @readme/openapi-parser', async () => {
    expect(served.openapi).to.equal('3.1.0');
    const result = await validate(structuredClone(served) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).to.equal(true);
    expect(result.specification).to.equal('OpenAPI');
  });

  it('lints clean with @redocly/cli (openapi/redocly.yaml: the recommended rules), as a real school serves it', async function () {
    this.timeout(60000);
    // Served for a school on a real host name: the rules rightly warn about a localhost server URL.
    const port = admin.server.port;
    await createSite(scratch().db, { origin: `http://school.test:${port}`, name: 'Lint School', subdomain: `lint-${port}` });
    const answer = await getWithHost(port, `school.test:${port}`, '/openapi.json');
    expect(answer.status).to.equal(200);
    expect((JSON.parse(answer.body) as Json).servers).to.deep.equal([{ url: `http://school.test:${port}/api/admin/v1`, description: 'This school site' }]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-openapi-'));
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, answer.body);
    try {
      const { code, output } = await runRedoclyLint(file);
      expect(code, output).to.equal(0);
      expect(output, output).to.match(/Your API description is valid/);
      expect(output, output).to.not.match(/You have \d+ warnings?/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names the site's own origin in servers and in the OAuth flow URLs", async () => {
    expect(served.servers).to.deep.equal([{ url: `${admin.origin}/api/admin/v1`, description: 'This school site' }]);
    const flows = (((served.components as Json).securitySchemes as Json).oauth2 as Json).flows as Json;
    expect(flows.authorizationCode).to.include({
      authorizationUrl: `${admin.origin}/oauth/authorize`,
      tokenUrl: `${admin.origin}/api/oauth/token`,
      refreshUrl: `${admin.origin}/api/oauth/token`,
    });
    const scopes = Object.keys((flows.authorizationCode as Json).scopes as Json);
    expect(scopes).to.include.members(['openid', 'school:read', 'school:write', 'pages:write']);
    expect(scopes).to.not.include('account:read');

    const other = (await (await fetch(`${admin.server.siteB.origin}/openapi.json`)).json()) as Json;
    expect(other.servers).to.deep.equal([{ url: `${admin.server.siteB.origin}/api/admin/v1`, description: 'This school site' }]);
  });

  it('is what the response validator of every admin test is built from', async () => {
    const api = await AdminApi.connect(admin.origin, null);
    expect(api.baseUrl).to.equal(`${admin.origin}/api/admin/v1`);
    expect(api.operationIds().sort()).to.deep.equal(Object.keys(ADMIN_HANDLERS).sort());
  });

  it('is public and cacheable, and not a route of the admin API', async () => {
    const response = await fetch(`${admin.origin}/openapi.json`);
    expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    expect(response.headers.get('cache-control')).to.match(/max-age=\d+/);
    const guide = await (await fetch(`${admin.origin}/auth.md`)).text();
    expect(guide).to.contain(`${admin.origin}/openapi.json`);
  });
});
