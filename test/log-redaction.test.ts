import { Writable } from 'node:stream';
import { expect } from 'chai';
import { describeEachDatabase } from './support/databases.js';
import { issueCode, makeClient, makeUser, REDIRECT_URI } from './support/oauth-fixtures.js';
import { testConfig } from './support/server.js';
import { OAUTH_PATHS } from '../src/oauth/endpoints.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createLogger, maskSecretsInText, REDACTED, type Logger } from '../src/shared/logger.js';
import { createSite, type Site } from '../src/sites/sites.js';

interface Capture {
  logger: Logger;
  lines: string[];
  entries(): Array<Record<string, unknown>>;
}

/** A logger writing into memory, at the most verbose level. */
function capturingLogger(): Capture {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  return { logger: createLogger('trace', destination), lines, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** Distinct values, so a leak of any of them is found by a plain search of the output. */
const SECRETS = {
  authorization: 'Bearer sga_access_SECRET_1',
  cookie: 'sg_session=cookie_SECRET_2',
  setCookie: 'sg_session=set_cookie_SECRET_3; HttpOnly',
  clientSecret: 'client_secret_SECRET_4',
  refreshToken: 'sgr_refresh_SECRET_5',
  accessToken: 'sga_access_SECRET_6',
  code: 'code_SECRET_7',
  codeVerifier: 'verifier_SECRET_8',
  password: 'password_SECRET_9',
} as const;

function expectNoSecret(output: string): void {
  for (const [name, value] of Object.entries(SECRETS)) {
    const core = value.match(/\w*SECRET_\d/)?.[0] ?? value;
    expect(output, `${name} leaked`).to.not.contain(core);
  }
}

describe('log redaction: createLogger', () => {
  it('redacts request headers, query and body of a logged request', () => {
    const capture = capturingLogger();
    capture.logger.info(
      {
        req: {
          method: 'POST',
          headers: { authorization: SECRETS.authorization, cookie: SECRETS.cookie, 'content-type': 'application/x-www-form-urlencoded' },
          query: { code: SECRETS.code, state: 'xyz' },
          body: {
            grant_type: 'authorization_code',
            client_id: 'sg_client',
            client_secret: SECRETS.clientSecret,
            code: SECRETS.code,
            code_verifier: SECRETS.codeVerifier,
            refresh_token: SECRETS.refreshToken,
            password: SECRETS.password,
          },
        },
        res: { headers: { 'set-cookie': [SECRETS.setCookie], 'content-type': 'application/json' }, body: { access_token: SECRETS.accessToken, refresh_token: SECRETS.refreshToken, token_type: 'Bearer' } },
      },
      'request',
    );
    const [entry] = capture.entries();
    expect(entry).to.deep.include({
      req: {
        method: 'POST',
        headers: { authorization: REDACTED, cookie: REDACTED, 'content-type': 'application/x-www-form-urlencoded' },
        query: { code: REDACTED, state: 'xyz' },
        body: { grant_type: 'authorization_code', client_id: 'sg_client', client_secret: REDACTED, code: REDACTED, code_verifier: REDACTED, refresh_token: REDACTED, password: REDACTED },
      },
      res: { headers: { 'set-cookie': REDACTED, 'content-type': 'application/json' }, body: { access_token: REDACTED, refresh_token: REDACTED, token_type: 'Bearer' } },
    });
    expectNoSecret(capture.lines.join('\n'));
  });

  it('redacts an error with an HTTP client config, a response and a cause, and keeps the error codes', () => {
    const capture = capturingLogger();
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', request: { headers: { Cookie: SECRETS.cookie } } });
    const error = Object.assign(new Error(`POST https://idp.example/token?code=${SECRETS.code} failed`, { cause }), {
      code: 'ERR_BAD_RESPONSE',
      config: {
        url: `https://idp.example/token?code=${SECRETS.code}&state=1`,
        headers: { Authorization: SECRETS.authorization },
        data: `grant_type=authorization_code&code=${SECRETS.code}&code_verifier=${SECRETS.codeVerifier}&client_secret=${SECRETS.clientSecret}`,
        params: { code: SECRETS.code },
      },
      response: { headers: { 'Set-Cookie': SECRETS.setCookie }, data: { access_token: SECRETS.accessToken, refresh_token: SECRETS.refreshToken } },
      body: `{"password":"${SECRETS.password}","email":"a@example.com"}`,
    });
    capture.logger.error({ err: error }, 'request failed');
    const [entry] = capture.entries();
    const err = entry?.err as Record<string, unknown>;
    expect(err.code, 'the error code stays: it is what the log is for').to.equal('ERR_BAD_RESPONSE');
    // pino folds the cause into the message and the stack.
    expect(err.message).to.equal(`POST https://idp.example/token?code=${REDACTED} failed: connect ECONNREFUSED`);
    expect(err.config).to.deep.equal({
      url: `https://idp.example/token?code=${REDACTED}&state=1`,
      headers: { Authorization: REDACTED },
      data: `grant_type=authorization_code&code=${REDACTED}&code_verifier=${REDACTED}&client_secret=${REDACTED}`,
      params: { code: REDACTED },
    });
    expect(err.response).to.deep.equal({ headers: { 'Set-Cookie': REDACTED }, data: { access_token: REDACTED, refresh_token: REDACTED } });
    expect(err.body).to.equal(`{"password":"${REDACTED}","email":"a@example.com"}`);
    expectNoSecret(capture.lines.join('\n'));
  });

  it('redacts at any depth, in arrays, in child loggers and in the message', () => {
    const capture = capturingLogger();
    const child = capture.logger.child({ requestId: 'r1' });
    child.warn({ a: { b: { c: { d: { e: { password: SECRETS.password, keep: 1 } } } } }, attempts: [{ body: { client_secret: SECRETS.clientSecret } }] }, `redirecting to ${REDIRECT_URI}?code=${SECRETS.code}&state=s with ${SECRETS.authorization}`);
    const [entry] = capture.entries();
    expect(entry).to.deep.include({ requestId: 'r1', a: { b: { c: { d: { e: { password: REDACTED, keep: 1 } } } } }, attempts: [{ body: { client_secret: REDACTED } }] });
    expect(entry?.msg).to.equal(`redirecting to ${REDIRECT_URI}?code=${REDACTED}&state=s with Bearer ${REDACTED}`);
    expectNoSecret(capture.lines.join('\n'));
  });

  it('masks credentials in text and leaves everything else alone', () => {
    expect(maskSecretsInText('/cb?code=abc&state=x#access_token=t&token_type=Bearer')).to.equal(`/cb?code=${REDACTED}&state=x#access_token=${REDACTED}&token_type=Bearer`);
    expect(maskSecretsInText('refresh_token=r1&grant_type=refresh_token')).to.equal(`refresh_token=${REDACTED}&grant_type=refresh_token`);
    expect(maskSecretsInText('Authorization: Basic dXNlcjpwYXNz')).to.equal(`Authorization: Basic ${REDACTED}`);
    expect(maskSecretsInText('{"token": "t\\"1", "id": 3}')).to.equal(`{"token":"${REDACTED}", "id": 3}`);
    for (const plain of ['GET /api/oauth/token 400', '?error_code=42&codec=h264', 'grant_type=authorization_code', 'the Authorization header is not "Bearer <access token>"']) {
      expect(maskSecretsInText(plain), plain).to.equal(plain);
    }
  });
});

describeEachDatabase('log redaction: real requests', (scratch) => {
  let running: RunningServer;
  let capture: Capture;
  let site: Site;

  before(async () => {
    capture = capturingLogger();
    running = await startServer(testConfig({ database: scratch().config }), { db: scratch().db, logger: capture.logger });
    const port = new URL(running.listeningOn).port;
    site = await createSite(scratch().db, { origin: `http://localhost:${port}`, name: 'Log School', subdomain: `log-${port}` });
  });
  after(() => running.stop(1000));

  it('logs no token, client secret, code, verifier, cookie or password of the requests it serves', async () => {
    const db = scratch().db;
    const user = await makeUser(db, site, ['student'], 'Logged Member');
    const app = await makeClient(db, site, { audience: 'member', confidential: true, scopes: ['openid', 'profile', 'account:read'] });
    const grant = await issueCode(db, site, app, user, 'openid profile account:read');
    const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: SECRETS.cookie }, body: new URLSearchParams(fields) });

    const issued = await fetch(`${site.origin}${OAUTH_PATHS.token}`, form({ grant_type: 'authorization_code', client_id: app.client.clientId, client_secret: app.secret ?? '', code: grant.code, code_verifier: grant.verifier, redirect_uri: REDIRECT_URI, resource: site.origin }));
    expect(issued.status).to.equal(200);
    const tokens = (await issued.json()) as { access_token: string; refresh_token: string };

    // The same requests with the fixed secrets, and the real ones, in headers, query strings and forms.
    const userinfo = await fetch(`${site.origin}${OAUTH_PATHS.userinfo}?code=${SECRETS.code}&access_token=${SECRETS.accessToken}`, { headers: { authorization: `Bearer ${tokens.access_token}`, cookie: SECRETS.cookie } });
    expect(userinfo.status).to.be.oneOf([200, 400]);
    const refused = await fetch(`${site.origin}${OAUTH_PATHS.userinfo}`, { headers: { authorization: SECRETS.authorization } });
    expect(refused.status).to.equal(401);
    const wrongSecret = await fetch(`${site.origin}${OAUTH_PATHS.token}`, form({ grant_type: 'refresh_token', client_id: app.client.clientId, client_secret: SECRETS.clientSecret, refresh_token: SECRETS.refreshToken }));
    expect(wrongSecret.status).to.equal(401);
    const replay = await fetch(`${site.origin}${OAUTH_PATHS.token}`, form({ grant_type: 'authorization_code', client_id: app.client.clientId, client_secret: app.secret ?? '', code: SECRETS.code, code_verifier: SECRETS.codeVerifier, redirect_uri: REDIRECT_URI, password: SECRETS.password }));
    expect(replay.status).to.equal(400);
    const refreshed = await fetch(`${site.origin}${OAUTH_PATHS.token}`, form({ grant_type: 'refresh_token', client_id: app.client.clientId, client_secret: app.secret ?? '', refresh_token: tokens.refresh_token }));
    expect(refreshed.status).to.equal(200);
    const revoked = await fetch(`${site.origin}${OAUTH_PATHS.revoke}`, form({ client_id: app.client.clientId, client_secret: app.secret ?? '', token: tokens.refresh_token }));
    expect(revoked.status).to.equal(200);
    const authorize = await fetch(`${site.origin}${OAUTH_PATHS.authorize}?response_type=code&client_id=${app.client.clientId}&code=${SECRETS.code}`, { headers: { cookie: SECRETS.cookie }, redirect: 'manual' });
    expect(authorize.status).to.be.below(500);

    const output = capture.lines.join('\n');
    const requests = capture.entries().filter((entry) => entry.msg === 'request');
    expect(requests.length, 'one access-log line per request').to.be.at.least(8);
    expect(requests.map((entry) => entry.path)).to.include(OAUTH_PATHS.token);
    expectNoSecret(output);
    for (const secret of [grant.code, grant.verifier, app.secret ?? '', tokens.access_token, tokens.refresh_token]) {
      expect(secret).to.have.length.above(8);
      expect(output).to.not.contain(secret);
    }
  });
});
