import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { USER_AGENT_LOGGED_LENGTH } from '../src/http/request-id.js';
import { OAUTH_PATHS } from '../src/oauth/endpoints.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createLogger } from '../src/shared/logger.js';
import { createSite, type Site } from '../src/sites/sites.js';
import { issueToken } from './support/admin.js';
import { describeEachDatabase } from './support/databases.js';
import { MODERN_META, modernHeaders } from './support/mcp-clients.js';
import { graphqlPath } from './support/member-api.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser, type TestClient } from './support/oauth-fixtures.js';
import { testConfig } from './support/server.js';

type Entry = Record<string, unknown>;

/**
 * The access line (one `request` line per request, docs/operations.md "Logs") names who asked: the client's address
 * (X-Forwarded-For only behind a trusted proxy), its User-Agent (cut short), the OAuth client the request identified,
 * and the error code of an error answer; never a credential.
 */
describeEachDatabase('the access line', (scratch) => {
  let direct: { running: RunningServer; lines: string[]; site: Site };
  let proxied: { running: RunningServer; lines: string[]; site: Site };

  async function start(trustProxy: boolean, name: string) {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        callback();
      },
    });
    const running = await startServer(testConfig({ database: scratch().config, trustProxy, variant: 'A' }), { db: scratch().db, logger: createLogger('info', destination) });
    const port = Number(new URL(running.listeningOn).port);
    const site = await createSite(scratch().db, { origin: `http://localhost:${port}`, name, subdomain: `${name.toLowerCase().replace(/\W+/g, '-')}-${port}` });
    return { running, lines, site };
  }

  before(async () => {
    direct = await start(false, 'Access Direct');
    proxied = await start(true, 'Access Proxied');
  });
  after(async () => {
    await direct.running.stop(1000);
    await proxied.running.stop(1000);
  });

  /** Sends a request with a fresh X-Request-Id and returns its status and its access line. */
  async function logged(server: { lines: string[]; site: Site }, path: string, init: RequestInit = {}): Promise<{ status: number; line: Entry; raw: string }> {
    const requestId = randomUUID();
    const headers = new Headers(init.headers);
    headers.set('x-request-id', requestId);
    const response = await fetch(`${server.site.origin}${path}`, { redirect: 'manual', ...init, headers });
    await response.arrayBuffer();
    const raw = server.lines.find((line) => line.includes(requestId) && line.includes('"msg":"request"'));
    if (raw === undefined) throw new Error(`no access line for ${path}`);
    return { status: response.status, line: JSON.parse(raw) as Entry, raw };
  }

  it('carries the client address and User-Agent, cut to a bounded length', async () => {
    const { line } = await logged(direct, '/healthz', { headers: { 'user-agent': 'AccessLogTest/1.0 (+tests)' } });
    expect(line).to.include({ msg: 'request', method: 'GET', path: '/healthz', status: 200, userAgent: 'AccessLogTest/1.0 (+tests)' });
    expect(String(line.ip)).to.match(/^(::ffff:)?127\.0\.0\.1$/);
    const long = await logged(direct, '/healthz', { headers: { 'user-agent': `Long/${'x'.repeat(2000)}` } });
    expect(String(long.line.userAgent)).to.have.length(USER_AGENT_LOGGED_LENGTH);
    expect(long.raw.length).to.be.below(1500);
    // No client id and no error code where none applies.
    expect(line).not.to.have.any.keys('clientId', 'errorCode');
  });

  it('takes the address from X-Forwarded-For only with TRUST_PROXY', async () => {
    const untrusted = await logged(direct, '/healthz', { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(String(untrusted.line.ip)).to.match(/^(::ffff:)?127\.0\.0\.1$/);
    const trusted = await logged(proxied, '/healthz', { headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' } });
    // The last hop: the one the trusted proxy added, not one the client wrote before it.
    expect(trusted.line.ip).to.equal('203.0.113.7');
  });

  it('names the client and the OAuth error of a failing token request, and no credential', async () => {
    const app = await makeClient(scratch().db, direct.site, { audience: 'member', confidential: true, scopes: ['openid'] });
    const secret = app.secret ?? '';
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'sgr_never_SECRET_issued', client_id: app.client.clientId, client_secret: secret });
    const { status, line, raw } = await logged(direct, OAUTH_PATHS.token, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    expect(status).to.equal(400);
    expect(line).to.include({ path: OAUTH_PATHS.token, status: 400, clientId: app.client.clientId, errorCode: 'invalid_grant' });
    expect(raw).not.to.contain('SECRET');
    expect(raw).not.to.contain(secret);

    // Client authentication that fails identifies no client: the error code only.
    const wrong = await logged(direct, OAUTH_PATHS.token, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.client.clientId, client_secret: 'wrong_SECRET_value' }) });
    expect(wrong.status).to.equal(401);
    expect(wrong.line).to.include({ errorCode: 'invalid_client' });
    expect(wrong.line).not.to.have.property('clientId');
    expect(wrong.raw).not.to.contain('SECRET');
  });

  async function tokenOf(app: TestClient, scope: string): Promise<string> {
    const user = await makeUser(scratch().db, direct.site, ['student']);
    const response = await exchangeCode(await discover(direct.site.origin), app, await issueCode(scratch().db, direct.site, app, user, scope));
    const body = (await response.json()) as { access_token: string };
    return body.access_token;
  }

  it('names the client of a bearer token at userinfo, the member API and /mcp, and never the token', async () => {
    const app = await makeClient(scratch().db, direct.site, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'account:read'] });
    const token = await tokenOf(app, 'openid profile account:read');
    const userinfo = await logged(direct, OAUTH_PATHS.userinfo, { headers: { authorization: `Bearer ${token}` } });
    expect(userinfo.line).to.include({ status: 200, clientId: app.client.clientId });
    const graphql = await logged(direct, graphqlPath('A'), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    expect(graphql.line).to.include({ status: 200, clientId: app.client.clientId });
    const mcp = await logged(direct, '/mcp', { method: 'POST', headers: modernHeaders('tools/list', undefined, token), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } }) });
    expect(mcp.line).to.include({ clientId: app.client.clientId });
    for (const { raw } of [userinfo, graphql, mcp]) expect(raw).not.to.contain(token);

    const refused = await logged(direct, OAUTH_PATHS.userinfo, { headers: { authorization: 'Bearer not_a_token_SECRET' } });
    expect(refused.line).to.include({ status: 401, errorCode: 'invalid_token' });
    expect(refused.raw).not.to.contain('SECRET');
  });

  it('names the operator client at the admin API, and the problem code of a refusal', async () => {
    const { token, app } = await issueToken(scratch().db, direct.site);
    const school = await logged(direct, '/api/admin/v1/school', { headers: { authorization: `Bearer ${token}` } });
    expect(school.line).to.include({ status: 200, clientId: app.client.clientId });
    expect(school.raw).not.to.contain(token);
    const refused = await logged(direct, '/api/admin/v1/school');
    expect(refused.line).to.include({ status: 401, errorCode: 'invalid_token' });
    expect(refused.line).not.to.have.property('clientId');
  });

  it('names the client of an authorization request', async () => {
    const app = await makeClient(scratch().db, direct.site, { audience: 'member', confidential: false, scopes: ['openid'] });
    const { line } = await logged(direct, `${OAUTH_PATHS.authorize}?client_id=${encodeURIComponent(app.client.clientId)}&response_type=code`);
    expect(line).to.include({ path: OAUTH_PATHS.authorize, clientId: app.client.clientId });
  });
});
