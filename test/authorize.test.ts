import http from 'node:http';
import { expect } from 'chai';
import { grantRole } from '../src/accounts/roles.js';
import { findLiveSession } from '../src/accounts/sessions.js';
import { SIGN_IN_LIMITS, signInBuckets } from '../src/accounts/sign-in.js';
import { createUser, type User } from '../src/accounts/users.js';
import { createClient, type OAuthClient } from '../src/clients/clients.js';
import { requireDate } from '../src/db/connection.js';
import { SCOPE_WORDING } from '../src/oauth/authorize/scope-wording.js';
import { currentHits, hit } from '../src/db/rate-limit.js';
import { sha256Hex } from '../src/shared/random.js';
import { createSite, type Site } from '../src/sites/sites.js';
import {
  authorizeViaPages,
  authorizeViaPagesExpectingError,
  browserRequest,
  buildAuthorizationUrl,
  CookieJar,
  createPkcePair,
  findForm,
  pageMessage,
  pageNameOf,
  submitForm,
  type AuthorizeViaPagesOptions,
  type BrowserAnswer,
} from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { startTestServer, type TestServer } from './support/server.js';
import { startOfRoomyWindow } from './support/rate-windows.js';

const PASSWORD = 'correct horse battery staple';
const MEMBER_REDIRECT = 'http://127.0.0.1:8765/callback';
const MEMBER_REDIRECT_WITH_QUERY = 'https://buddy.example.com/cb?source=sg';
const OPERATOR_REDIRECT = 'https://ops.example.com/oauth/callback';

function expectPage(answer: BrowserAnswer, status: number, page: string): asserts answer is Extract<BrowserAnswer, { kind: 'page' }> {
  if (answer.kind !== 'page') expect.fail(`expected the ${page} page (HTTP ${status}), got a ${answer.status} redirect to ${answer.location.href}`);
  expect(answer.response.headers.get('location'), 'no redirect').to.equal(null);
  expect(pageNameOf(answer.html), `page (message: ${pageMessage(answer.html)})`).to.equal(page);
  expect(answer.status).to.equal(status);
  expect(answer.response.headers.get('content-type')).to.match(/^text\/html/);
}

function expectRedirect(answer: BrowserAnswer): asserts answer is Extract<BrowserAnswer, { kind: 'redirect' }> {
  if (answer.kind !== 'redirect') expect.fail(`expected a redirect, got the ${pageNameOf(answer.html)} page (HTTP ${answer.status}): ${pageMessage(answer.html)}`);
}

function expectPageSecurityHeaders(response: Response, redirectOrigin?: string): void {
  const csp = response.headers.get('content-security-policy') ?? '';
  expect(csp).to.contain("default-src 'none'");
  expect(csp).to.contain("style-src 'unsafe-inline'");
  expect(csp).to.contain("frame-ancestors 'none'");
  expect(csp).to.contain("base-uri 'none'");
  expect(csp).to.match(/form-action 'self'/);
  if (redirectOrigin) expect(csp).to.contain(`form-action 'self' ${redirectOrigin}`);
  expect(csp).not.to.contain('script-src');
  expect(response.headers.get('x-frame-options')).to.equal('DENY');
  expect(response.headers.get('cache-control')).to.equal('no-store');
  expect(response.headers.get('referrer-policy')).to.equal('no-referrer');
  expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
}

/** A request with any Host and X-Forwarded-* headers (fetch cannot set Host). */
function rawRequest(
  port: number,
  options: { method?: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describeEachDatabase('GET /oauth/authorize with sign-in and consent pages', (scratch) => {
  let server: TestServer;
  let siteA: Site;
  let siteB: Site;
  let student: User;
  let operator: User;
  let outsider: User;
  let lecturer: User;
  let memberClient: OAuthClient;
  let singleRedirectClient: OAuthClient;
  let operatorClient: OAuthClient;
  let memberClientB: OAuthClient;
  const pkce = createPkcePair();

  before(async function () {
    this.timeout(60000);
    const { db } = scratch();
    server = await startTestServer(scratch());
    siteA = server.siteA;
    siteB = server.siteB;
    student = await createUser(db, { email: 'sam.student@example.com', name: 'Sam Student', password: PASSWORD });
    operator = await createUser(db, { email: 'olga.operator@example.com', name: 'Olga Operator', password: PASSWORD });
    outsider = await createUser(db, { email: 'oscar.outsider@example.com', name: 'Oscar Outsider', password: PASSWORD });
    lecturer = await createUser(db, { email: 'lena.lecturer@example.com', name: 'Lena Lecturer', password: PASSWORD });
    await grantRole(db, siteA.id, student.id, 'student');
    await grantRole(db, siteA.id, operator.id, 'operator');
    await grantRole(db, siteA.id, lecturer.id, 'lecturer');
    await grantRole(db, siteB.id, outsider.id, 'student');
    await grantRole(db, siteB.id, student.id, 'student');
    memberClient = (
      await createClient(db, siteA.id, {
        name: 'Study Buddy',
        audience: 'member',
        confidential: false,
        scopes: ['openid', 'profile', 'email', 'account:read', 'account:write'],
        redirectUris: [MEMBER_REDIRECT, MEMBER_REDIRECT_WITH_QUERY],
      })
    ).client;
    singleRedirectClient = (
      await createClient(db, siteA.id, { name: 'Only One', audience: 'member', confidential: true, scopes: ['openid', 'account:read'], redirectUris: [MEMBER_REDIRECT] })
    ).client;
    operatorClient = (
      await createClient(db, siteA.id, {
        name: 'Ops Console',
        audience: 'operator',
        confidential: true,
        scopes: ['openid', 'profile', 'email', 'courses:read', 'school:read'],
        redirectUris: [OPERATOR_REDIRECT],
      })
    ).client;
    memberClientB = (
      await createClient(db, siteB.id, { name: 'Beta Buddy', audience: 'member', confidential: false, scopes: ['openid', 'account:read'], redirectUris: [MEMBER_REDIRECT] })
    ).client;
  });
  after(async () => server.stop());
  beforeEach(async () => {
    await scratch().db('rate_limit_counters').delete();
  });

  function options(overrides: Partial<AuthorizeViaPagesOptions> = {}): AuthorizeViaPagesOptions {
    return {
      origin: siteA.origin,
      clientId: memberClient.clientId,
      redirectUri: MEMBER_REDIRECT,
      scope: 'openid profile account:read',
      email: student.email,
      password: PASSWORD,
      state: 'state-123',
      nonce: 'nonce-456',
      codeChallenge: pkce.challenge,
      ...overrides,
    };
  }

  /** GET /oauth/authorize in a browser (jar) and expect the sign-in page. */
  async function openSignIn(jar: CookieJar, overrides: Partial<AuthorizeViaPagesOptions> = {}): Promise<Extract<BrowserAnswer, { kind: 'page' }>> {
    const answer = await browserRequest(jar, buildAuthorizationUrl(options(overrides)));
    expectPage(answer, 200, 'sign-in');
    return answer;
  }

  async function signIn(jar: CookieJar, page: Extract<BrowserAnswer, { kind: 'page' }>, email: string, password = PASSWORD): Promise<BrowserAnswer> {
    const form = findForm(page.html, '/oauth/authorize/sign-in');
    if (!form) expect.fail('no sign-in form');
    return submitForm(jar, page.url, form, { email, password });
  }

  async function openConsent(jar: CookieJar, overrides: Partial<AuthorizeViaPagesOptions> = {}, email = student.email): Promise<Extract<BrowserAnswer, { kind: 'page' }>> {
    const answer = await signIn(jar, await openSignIn(jar, overrides), email);
    expectPage(answer, 200, 'consent');
    return answer;
  }

  function consentForm(page: Extract<BrowserAnswer, { kind: 'page' }>) {
    const form = findForm(page.html, '/oauth/authorize/consent');
    if (!form) expect.fail('no consent form');
    return form;
  }

  describe('the happy path', () => {
    it('signs in, approves, and redirects to redirect_uri with code, state and iss (RFC 9207)', async () => {
      const result = await authorizeViaPages(options());
      expect(result.code).to.match(/^sgc_[A-Za-z0-9_-]{43}$/);
      expect(result.state).to.equal('state-123');
      expect(result.iss).to.equal(siteA.origin);
      expect(`${result.location.origin}${result.location.pathname}`).to.equal(MEMBER_REDIRECT);
      expect([...result.location.searchParams.keys()].sort()).to.deep.equal(['code', 'iss', 'state']);
      expect(result.pages).to.deep.equal(['sign-in', 'consent']);
    });

    it('records the code hashed, with what the token endpoint checks (client, redirect_uri, scopes, resource, PKCE, nonce, auth_time)', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      const result = await authorizeViaPages(options({ jar, scope: 'openid account:read', nonce: 'n-0S6_WzA2Mj' }));
      const row = (await db('authorization_codes').where({ code_hash: sha256Hex(result.code) }).first()) as Record<string, unknown> | undefined;
      expect(row, 'code row by hash').to.not.equal(undefined);
      expect(JSON.stringify(await db('authorization_codes').select())).not.to.contain(result.code);
      expect(row).to.include({ site_id: siteA.id, client_ref: memberClient.ref, user_id: student.id, redirect_uri: MEMBER_REDIRECT, scope: 'openid account:read' });
      expect(row).to.include({ resource: siteA.origin, code_challenge: pkce.challenge, code_challenge_method: 'S256', nonce: 'n-0S6_WzA2Mj' });
      const token = jar.get(siteA.origin, 'sg_session') ?? '';
      const session = await findLiveSession(db, siteA.id, token);
      expect(session?.authenticatedAt?.getTime()).to.equal(requireDate(row?.auth_time).getTime());
    });

    it('uses the only registered redirect_uri when none is given', async () => {
      const result = await authorizeViaPages(options({ clientId: singleRedirectClient.clientId, scope: 'openid', extraParameters: { redirect_uri: null } }));
      expect(`${result.location.origin}${result.location.pathname}`).to.equal(MEMBER_REDIRECT);
      const parameters = JSON.parse(String(((await scratch().db('authorization_requests').orderBy('id', 'desc').first()) as { parameters: string }).parameters)) as { redirectUriGiven: boolean };
      expect(parameters.redirectUriGiven).to.equal(false);
    });

    it('keeps the query of a registered redirect_uri and adds the response parameters', async () => {
      const result = await authorizeViaPages(options({ redirectUri: MEMBER_REDIRECT_WITH_QUERY }));
      expect(result.location.searchParams.get('source')).to.equal('sg');
      expect(result.location.href.startsWith(`${MEMBER_REDIRECT_WITH_QUERY}&`)).to.equal(true);
    });

    it('shows the consent page on every authorization, also with a live session (spec, Authentication 13)', async () => {
      const jar = new CookieJar();
      const first = await authorizeViaPages(options({ jar }));
      const second = await authorizeViaPages(options({ jar, state: 'second' }));
      expect(first.pages).to.deep.equal(['sign-in', 'consent']);
      expect(second.pages).to.deep.equal(['consent']);
      expect(second.code).not.to.equal(first.code);
      expect(second.state).to.equal('second');
    });

    it('describes the client, its kind, the site, each scope in words and the redirect host on the consent page', async () => {
      const page = await openConsent(new CookieJar(), { scope: 'openid email account:read account:write' });
      expect(page.html).to.contain('Study Buddy').and.contain('Member app').and.contain(siteA.name);
      for (const scope of ['openid', 'email', 'account:read', 'account:write'] as const) expect(page.html).to.contain(SCOPE_WORDING[scope].replace(/'/g, '&#39;'));
      expect(page.html).to.contain('127.0.0.1:8765');
      expect(page.html).to.contain(student.email).and.contain('Sign in as someone else');
      const form = consentForm(page);
      expect(form.buttons.map((button) => button.value)).to.deep.equal(['approve', 'deny']);
      expect(page.html).not.to.match(/<script/i);
    });

    it('lets an operator authorize an operator tool, described as one', async () => {
      const jar = new CookieJar();
      const page = await openConsent(jar, { clientId: operatorClient.clientId, redirectUri: OPERATOR_REDIRECT, scope: 'openid courses:read' }, operator.email);
      expect(page.html).to.contain('Operator tool').and.contain('ops.example.com');
      const answer = await submitForm(jar, page.url, consentForm(page), { decision: 'approve' });
      expectRedirect(answer);
      expect(answer.status).to.equal(303);
      expect(answer.location.searchParams.get('code')).to.match(/^sgc_/);
    });

    it('pre-fills the email from login_hint', async () => {
      const page = await openSignIn(new CookieJar(), { extraParameters: { login_hint: 'someone@example.com' } });
      expect(findForm(page.html, '/oauth/authorize/sign-in')?.fields.get('email')).to.equal('someone@example.com');
    });
  });

  describe('requests that are shown an error page and never redirected (RFC 6749 4.1.2.1)', () => {
    const cases: Array<[string, (o: AuthorizeViaPagesOptions) => Partial<AuthorizeViaPagesOptions>]> = [
      ['an unknown client_id', () => ({ clientId: 'sg_no_such_client' })],
      ['no client_id', () => ({ extraParameters: { client_id: null } })],
      ['an unregistered redirect_uri', () => ({ redirectUri: 'https://attacker.example/callback' })],
      ['a redirect_uri that differs by a trailing slash', () => ({ redirectUri: `${MEMBER_REDIRECT}/` })],
      ['a redirect_uri that differs in case', () => ({ redirectUri: MEMBER_REDIRECT.replace('callback', 'Callback') })],
      ['no redirect_uri when several are registered', () => ({ extraParameters: { redirect_uri: null } })],
      ["another site's client", () => ({ clientId: memberClientB.clientId })],
    ];
    for (const [title, change] of cases) {
      it(`${title}: 400 page, no Location`, async () => {
        const base = options();
        const answer = await browserRequest(new CookieJar(), buildAuthorizationUrl({ ...base, ...change(base) }));
        expectPage(answer, 400, 'error');
        expectPageSecurityHeaders(answer.response);
        expect(answer.response.headers.get('set-cookie')).to.equal(null);
      });
    }

    it('escapes what it echoes', async () => {
      const answer = await browserRequest(new CookieJar(), buildAuthorizationUrl(options({ clientId: '<script>alert(1)</script>' })));
      expectPage(answer, 400, 'error');
      expect(answer.html).not.to.contain('<script>');
      expect(answer.html).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    });

    it('a duplicated client_id or redirect_uri', async () => {
      for (const name of ['client_id', 'redirect_uri']) {
        const url = buildAuthorizationUrl(options());
        url.search += `&${name}=${encodeURIComponent(url.searchParams.get(name) ?? '')}`;
        const answer = await browserRequest(new CookieJar(), url);
        expectPage(answer, 400, 'error');
        expect(pageMessage(answer.html)).to.contain(`${name} more than once`);
      }
    });
  });

  describe('errors sent back to the client with error, error_description, state and iss', () => {
    const cases: Array<[string, Partial<AuthorizeViaPagesOptions>, string]> = [
      ['code_challenge_method=plain', { extraParameters: { code_challenge_method: 'plain' } }, 'invalid_request'],
      ['no code_challenge_method (means plain)', { extraParameters: { code_challenge_method: null } }, 'invalid_request'],
      ['no code_challenge', { extraParameters: { code_challenge: null } }, 'invalid_request'],
      ['a code_challenge of 42 characters', { codeChallenge: 'a'.repeat(42) }, 'invalid_request'],
      ['a code_challenge with a bad character', { codeChallenge: `${'a'.repeat(42)}+` }, 'invalid_request'],
      ['no resource', { extraParameters: { resource: null } }, 'invalid_target'],
      ["another site's origin as resource", { resource: 'http://127.0.0.1:1' }, 'invalid_target'],
      ['a resource with a path', { resource: 'RESOURCE_WITH_PATH' }, 'invalid_target'],
      ['response_type=token', { extraParameters: { response_type: 'token' } }, 'unsupported_response_type'],
      ['no response_type', { extraParameters: { response_type: null } }, 'invalid_request'],
      ['an unknown scope', { scope: 'openid pizza:eat' }, 'invalid_scope'],
      ['a scope the member client was not given', { scope: 'openid courses:read' }, 'invalid_scope'],
      ['response_mode=fragment', { extraParameters: { response_mode: 'fragment' } }, 'invalid_request'],
      ['prompt=none (consent is always shown)', { extraParameters: { prompt: 'none' } }, 'consent_required'],
      ['a request object', { extraParameters: { request: 'eyJhbGciOiJub25lIn0.e30.' } }, 'request_not_supported'],
      ['a nonce over 255 characters', { nonce: 'n'.repeat(256) }, 'invalid_request'],
    ];
    for (const [title, overrides, error] of cases) {
      it(`${title} → ${error}`, async () => {
        const resource = overrides.resource === 'RESOURCE_WITH_PATH' ? `${siteA.origin}/member/graphql` : overrides.resource;
        const url = buildAuthorizationUrl(options({ ...overrides, ...(resource ? { resource } : {}) }));
        const answer = await browserRequest(new CookieJar(), url);
        expectRedirect(answer);
        expect(answer.status).to.equal(302);
        expect(`${answer.location.origin}${answer.location.pathname}`).to.equal(MEMBER_REDIRECT);
        expect(answer.location.searchParams.get('error')).to.equal(error);
        expect(answer.location.searchParams.get('error_description')).to.be.a('string').and.not.equal('');
        expect(answer.location.searchParams.get('state')).to.equal('state-123');
        expect(answer.location.searchParams.get('iss')).to.equal(siteA.origin);
        expect(answer.location.searchParams.get('code')).to.equal(null);
        expectPageSecurityHeaders(answer.response);
      });
    }

    it('an operator client asking for account:read → invalid_scope (spec, Authentication 6)', async () => {
      const answer = await browserRequest(new CookieJar(), buildAuthorizationUrl(options({ clientId: operatorClient.clientId, redirectUri: OPERATOR_REDIRECT, scope: 'openid account:read' })));
      expectRedirect(answer);
      expect(answer.location.origin).to.equal('https://ops.example.com');
      expect(answer.location.searchParams.get('error')).to.equal('invalid_scope');
      expect(answer.location.searchParams.get('error_description')).to.contain('account:read');
    });

    it('a duplicated parameter other than client_id and redirect_uri → invalid_request', async () => {
      const url = buildAuthorizationUrl(options());
      url.search += '&scope=openid';
      const answer = await browserRequest(new CookieJar(), url);
      expectRedirect(answer);
      expect(answer.location.searchParams.get('error')).to.equal('invalid_request');
      expect(answer.location.searchParams.get('error_description')).to.contain('scope');
    });

    it('leaves state out when none was sent', async () => {
      const answer = await browserRequest(new CookieJar(), buildAuthorizationUrl(options({ state: undefined, extraParameters: { code_challenge_method: 'plain' } })));
      expectRedirect(answer);
      expect(answer.location.searchParams.has('state')).to.equal(false);
      expect(answer.location.searchParams.get('iss')).to.equal(siteA.origin);
    });

    it('a Deny on the consent page → access_denied', async () => {
      const result = await authorizeViaPagesExpectingError(options({ decision: 'deny' }));
      expect(result.error).to.equal('access_denied');
      expect(result.state).to.equal('state-123');
      expect(result.iss).to.equal(siteA.origin);
      expect(result.pages).to.deep.equal(['sign-in', 'consent']);
    });

    it('Cancel on the sign-in page → access_denied', async () => {
      const jar = new CookieJar();
      const page = await openSignIn(jar);
      const form = findForm(page.html, '/oauth/authorize/cancel');
      if (!form) expect.fail('no cancel form');
      const answer = await submitForm(jar, page.url, form, {});
      expectRedirect(answer);
      expect(answer.status).to.equal(303);
      expect(answer.location.searchParams.get('error')).to.equal('access_denied');
    });
  });

  describe('who may authorize (spec, Authentication 4-5)', () => {
    it('a student can authorize a member client', async () => {
      const result = await authorizeViaPages(options({ email: student.email }));
      expect(result.code).to.match(/^sgc_/);
    });

    it('a lecturer can authorize a member client', async () => {
      expect((await authorizeViaPages(options({ email: lecturer.email }))).code).to.match(/^sgc_/);
    });

    it('a student cannot authorize an operator client: access_denied after signing in', async () => {
      const result = await authorizeViaPagesExpectingError(options({ clientId: operatorClient.clientId, redirectUri: OPERATOR_REDIRECT, scope: 'openid courses:read' }));
      expect(result.error).to.equal('access_denied');
      expect(result.errorDescription).to.contain('operator');
      expect(result.state).to.equal('state-123');
      expect(result.iss).to.equal(siteA.origin);
      expect(result.pages).to.deep.equal(['sign-in']);
    });

    it('a user with no role at this site (only at another) gets access_denied', async () => {
      const result = await authorizeViaPagesExpectingError(options({ email: outsider.email }));
      expect(result.error).to.equal('access_denied');
      expect(result.errorDescription).to.contain('no role');
      // …and can authorize at the site where they hold one.
      const atB = await authorizeViaPages(options({ origin: siteB.origin, clientId: memberClientB.clientId, scope: 'openid account:read', email: outsider.email }));
      expect(atB.iss).to.equal(siteB.origin);
    });

    it('a signed-in student opening an operator client is offered the sign-in page to switch accounts', async () => {
      const jar = new CookieJar();
      await authorizeViaPages(options({ jar }));
      const answer = await browserRequest(jar, buildAuthorizationUrl(options({ clientId: operatorClient.clientId, redirectUri: OPERATOR_REDIRECT, scope: 'openid school:read' })));
      expectPage(answer, 200, 'sign-in');
      expect(pageMessage(answer.html)).to.contain(student.email).and.contain('operator');
      const consent = await signIn(jar, answer, operator.email);
      expectPage(consent, 200, 'consent');
      expect(consent.html).to.contain(operator.email);
    });
  });

  describe('sign-in', () => {
    it('answers a wrong password and an unknown email with the same generic message', async () => {
      const jar = new CookieJar();
      const wrongPassword = await signIn(jar, await openSignIn(jar), student.email, 'not the password');
      expectPage(wrongPassword, 400, 'sign-in');
      const unknown = await signIn(jar, wrongPassword, 'nobody@example.com', 'not the password');
      expectPage(unknown, 400, 'sign-in');
      const notAnEmail = await signIn(jar, unknown, 'not-an-email', 'not the password');
      expectPage(notAnEmail, 400, 'sign-in');
      expect(pageMessage(wrongPassword.html)).to.equal('The email or password is not correct.');
      expect(pageMessage(unknown.html)).to.equal(pageMessage(wrongPassword.html));
      expect(pageMessage(notAnEmail.html)).to.equal(pageMessage(wrongPassword.html));
      // The form still works after failures.
      const consent = await signIn(jar, notAnEmail, student.email);
      expectPage(consent, 200, 'consent');
    });

    it(`limits failures per account: after ${SIGN_IN_LIMITS.perAccount.limit} the account gets 429, even with the right password`, async function () {
      this.timeout(300_000);
      await startOfRoomyWindow(SIGN_IN_LIMITS.perAccount.windowSeconds, 120);
      const jar = new CookieJar();
      let page = await openSignIn(jar);
      for (let attempt = 0; attempt < SIGN_IN_LIMITS.perAccount.limit; attempt += 1) {
        const answer = await signIn(jar, page, operator.email, `wrong-${attempt}`);
        expectPage(answer, 400, 'sign-in');
        page = answer;
      }
      const blocked = await signIn(jar, page, operator.email);
      expectPage(blocked, 429, 'error');
      expect(Number(blocked.response.headers.get('retry-after'))).to.be.within(1, SIGN_IN_LIMITS.perAccount.windowSeconds);
      expect(pageMessage(blocked.html)).to.match(/Wait \d+ minutes?/);
      expectPageSecurityHeaders(blocked.response);
      // Another account from the same address is not blocked.
      expect((await authorizeViaPages(options({ email: student.email }))).code).to.match(/^sgc_/);
    });

    it(`limits failures per client address: ${SIGN_IN_LIMITS.perAddress.limit} failures from one address block every account`, async function () {
      this.timeout(300_000);
      const { db } = scratch();
      const { limit, windowSeconds } = SIGN_IN_LIMITS.perAddress;
      await startOfRoomyWindow(windowSeconds, 120);
      // The server sees the test's loopback connections as 127.0.0.1 or ::1; fill both addresses' buckets to one below the limit.
      for (const address of ['127.0.0.1', '::1']) {
        for (let count = 0; count < limit - 1; count += 1) await hit(db, signInBuckets('filler@example.com', address).address, windowSeconds, limit);
      }
      const jar = new CookieJar();
      const last = await signIn(jar, await openSignIn(jar), 'someone.else@example.com', 'wrong');
      expectPage(last, 400, 'sign-in');
      const blocked = await signIn(jar, last, student.email);
      expectPage(blocked, 429, 'error');
      expect(blocked.response.headers.get('retry-after')).to.match(/^\d+$/);
    });

    it('counts in the database: the counters are rows, and a success gives its attempt back', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      const failed = await signIn(jar, await openSignIn(jar), student.email, 'wrong');
      expectPage(failed, 400, 'sign-in');
      // The sign-in counters; the authorize request that showed the page has its own (test/anonymous-limits.test.ts).
      const rows = (await db('rate_limit_counters').where('bucket', 'like', 'sign-in:%').select('bucket', 'hits')) as Array<{ bucket: string; hits: number }>;
      expect(rows.map((row) => row.bucket).sort()).to.have.length(2);
      expect(rows.every((row) => Number(row.hits) === 1)).to.equal(true);
      expect(JSON.stringify(rows)).not.to.contain(student.email);
      expectPage(await signIn(jar, failed, student.email), 200, 'consent');
      const after = (await db('rate_limit_counters').where('bucket', 'like', 'sign-in:%').select('hits')) as Array<{ hits: number }>;
      expect(after.map((row) => Number(row.hits))).to.deep.equal([1, 1]);
    });

    it('counts concurrent hits of one bucket atomically (fixed window shared by every instance)', async () => {
      const { db } = scratch();
      const results = await Promise.all(Array.from({ length: 12 }, () => hit(db, 'test:concurrent', 60, 10)));
      expect(results.map((result) => result.hits).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 12 }, (_, index) => index + 1));
      expect(results.filter((result) => !result.allowed)).to.have.length(2);
      expect(Number(((await db('rate_limit_counters').where({ bucket: 'test:concurrent' }).first('hits')) as { hits: number }).hits)).to.equal(12);
      expect(await currentHits(db, 'test:concurrent', 60)).to.equal(12);
    });

    it('rotates the session token on sign-in and stores only hashes of tokens and handles', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      const page = await openSignIn(jar);
      const anonymous = jar.get(siteA.origin, 'sg_session') ?? '';
      expect(anonymous).to.match(/^sgss_/);
      const handle = findForm(page.html, '/oauth/authorize/sign-in')?.fields.get('handle') ?? '';
      expect(handle).to.match(/^sgar_/);
      expectPage(await signIn(jar, page, student.email), 200, 'consent');
      const signedIn = jar.get(siteA.origin, 'sg_session') ?? '';
      expect(signedIn).to.match(/^sgss_/).and.not.equal(anonymous);
      expect(await findLiveSession(db, siteA.id, anonymous)).to.equal(null);
      expect((await findLiveSession(db, siteA.id, signedIn))?.userId).to.equal(student.id);
      const stored = JSON.stringify([await db('sign_in_sessions').select(), await db('authorization_requests').select()]);
      expect(stored).not.to.contain(signedIn).and.not.to.contain(anonymous).and.not.to.contain(handle);
      expect(stored).to.contain(sha256Hex(signedIn)).and.to.contain(sha256Hex(handle));
    });

    it('"Not you?" ends the session and signs in someone else', async () => {
      const jar = new CookieJar();
      const consent = await openConsent(jar);
      const before = jar.get(siteA.origin, 'sg_session') ?? '';
      const form = findForm(consent.html, '/oauth/authorize/switch-account');
      if (!form) expect.fail('no switch-account form');
      const signInAgain = await submitForm(jar, consent.url, form, {});
      expectPage(signInAgain, 200, 'sign-in');
      expect(await findLiveSession(scratch().db, siteA.id, before)).to.equal(null);
      const other = await signIn(jar, signInAgain, lecturer.email);
      expectPage(other, 200, 'consent');
      expect(other.html).to.contain(lecturer.email).and.not.contain(student.email);
      const answer = await submitForm(jar, other.url, consentForm(other), { decision: 'approve' });
      expectRedirect(answer);
      const row = (await scratch().db('authorization_codes').where({ code_hash: sha256Hex(answer.location.searchParams.get('code') ?? '') }).first()) as { user_id: number };
      expect(row.user_id).to.equal(lecturer.id);
    });

    it('prompt=login asks for the password even with a live session', async () => {
      const jar = new CookieJar();
      await authorizeViaPages(options({ jar }));
      const again = await authorizeViaPages(options({ jar, extraParameters: { prompt: 'login' } }));
      expect(again.pages).to.deep.equal(['sign-in', 'consent']);
    });
  });

  describe('CSRF, single use and expiry', () => {
    it('refuses a sign-in post without or with a wrong CSRF token (403 page)', async () => {
      const jar = new CookieJar();
      const page = await openSignIn(jar);
      const form = findForm(page.html, '/oauth/authorize/sign-in');
      if (!form) expect.fail('no sign-in form');
      const missing = new Map(form.fields);
      missing.delete('csrf_token');
      for (const fields of [missing, new Map([...form.fields, ['csrf_token', 'forged']])]) {
        const answer = await browserRequest(jar, new URL('/oauth/authorize/sign-in', siteA.origin), { form: new Map([...fields, ['email', student.email], ['password', PASSWORD]]) });
        expectPage(answer, 403, 'error');
        expectPageSecurityHeaders(answer.response);
      }
      // A cross-site post carries no cookie (SameSite=Lax): same answer.
      const noCookie = await submitForm(new CookieJar(), page.url, form, { email: student.email, password: PASSWORD });
      expectPage(noCookie, 403, 'error');
    });

    it('refuses a consent post with a wrong CSRF token, or the token of another session', async () => {
      const mine = new CookieJar();
      const theirs = new CookieJar();
      const page = await openConsent(mine);
      const otherPage = await openConsent(theirs);
      const forged = await submitForm(mine, page.url, consentForm(page), { decision: 'approve', csrf_token: 'A'.repeat(43) });
      expectPage(forged, 403, 'error');
      const borrowed = await submitForm(mine, page.url, consentForm(page), { decision: 'approve', csrf_token: consentForm(otherPage).fields.get('csrf_token') ?? '' });
      expectPage(borrowed, 403, 'error');
      // The genuine form still works once.
      const answer = await submitForm(mine, page.url, consentForm(page), { decision: 'approve' });
      expectRedirect(answer);
    });

    it('answers a replayed consent post with an error page and no second code', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      const page = await openConsent(jar);
      const first = await submitForm(jar, page.url, consentForm(page), { decision: 'approve' });
      expectRedirect(first);
      const codes = (await db('authorization_codes').count({ n: '*' }))[0]?.n;
      const replay = await submitForm(jar, page.url, consentForm(page), { decision: 'approve' });
      expectPage(replay, 400, 'error');
      expect(pageMessage(replay.html)).to.contain('already completed');
      const deny = await submitForm(jar, page.url, consentForm(page), { decision: 'deny' });
      expectPage(deny, 400, 'error');
      expect((await db('authorization_codes').count({ n: '*' }))[0]?.n).to.equal(codes);
    });

    it('lets only one of two simultaneous consent posts through', async () => {
      const jar = new CookieJar();
      const page = await openConsent(jar);
      const answers = await Promise.all([1, 2, 3].map(() => submitForm(jar, page.url, consentForm(page), { decision: 'approve' })));
      expect(answers.filter((answer) => answer.kind === 'redirect')).to.have.length(1);
      expect(answers.filter((answer) => answer.kind === 'page' && answer.status === 400)).to.have.length(2);
    });

    it('refuses a consent post for a request whose consent page this session was never shown', async () => {
      const codesBefore = await scratch().db('authorization_codes').where({ client_ref: operatorClient.ref });
      const jar = new CookieJar();
      await authorizeViaPages(options({ jar }));
      // Signed in as a student, an operator tool gets the sign-in page (to switch accounts), not the consent page…
      const page = await browserRequest(jar, buildAuthorizationUrl(options({ clientId: operatorClient.clientId, redirectUri: OPERATOR_REDIRECT, scope: 'openid school:read' })));
      expectPage(page, 200, 'sign-in');
      const form = findForm(page.html, '/oauth/authorize/sign-in');
      // …whose CSRF token is valid for this session, but cannot approve a consent that was not shown.
      const answer = await browserRequest(jar, new URL('/oauth/authorize/consent', siteA.origin), {
        form: { handle: form?.fields.get('handle') ?? '', csrf_token: form?.fields.get('csrf_token') ?? '', decision: 'approve' },
      });
      expectPage(answer, 400, 'error');
      expect(await scratch().db('authorization_codes').where({ client_ref: operatorClient.ref })).to.have.length(codesBefore.length);
    });

    it('refuses an expired authorization request', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      const page = await openSignIn(jar);
      const handle = findForm(page.html, '/oauth/authorize/sign-in')?.fields.get('handle') ?? '';
      await db('authorization_requests').where({ handle_hash: sha256Hex(handle) }).update({ expires_at: new Date(Date.now() - 1000) });
      const answer = await signIn(jar, page, student.email);
      expectPage(answer, 400, 'error');
      expect(pageMessage(answer.html)).to.contain('expired');
    });

    it('refuses a form post that is not application/x-www-form-urlencoded, or repeats a field', async () => {
      const jar = new CookieJar();
      const page = await openSignIn(jar);
      const cookie = jar.header(siteA.origin) ?? '';
      const json = await fetch(new URL('/oauth/authorize/sign-in', siteA.origin), { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}', redirect: 'manual' });
      expect(json.status).to.equal(400);
      expect(pageNameOf(await json.text())).to.equal('error');
      const form = findForm(page.html, '/oauth/authorize/sign-in');
      const body = `${new URLSearchParams([...(form?.fields ?? []), ['email', student.email], ['password', PASSWORD]]).toString()}&email=x%40example.com`;
      const repeated = await fetch(new URL('/oauth/authorize/sign-in', siteA.origin), { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });
      expect(repeated.status).to.equal(400);
      expect(await repeated.text()).to.contain('more than once');
    });
  });

  describe('headers and cookies', () => {
    it('sends the page security headers on the sign-in and consent pages, with the redirect origin in form-action', async () => {
      const jar = new CookieJar();
      const signInPage = await openSignIn(jar);
      expectPageSecurityHeaders(signInPage.response, 'http://127.0.0.1:8765');
      const consent = await signIn(jar, signInPage, student.email);
      expectPage(consent, 200, 'consent');
      expectPageSecurityHeaders(consent.response, 'http://127.0.0.1:8765');
      const redirect = await submitForm(jar, consent.url, consentForm(consent), { decision: 'approve' });
      expectRedirect(redirect);
      expectPageSecurityHeaders(redirect.response, 'http://127.0.0.1:8765');
    });

    it('sets sg_session on an http origin: HttpOnly, SameSite=Lax, Path=/, no Secure', async () => {
      const jar = new CookieJar();
      const page = await openSignIn(jar);
      const [anonymous] = page.response.headers.getSetCookie();
      expect(anonymous).to.match(/^sg_session=sgss_[A-Za-z0-9_-]{43}; Max-Age=3[56]\d\d; Path=\/; HttpOnly; SameSite=Lax$/);
      const consent = await signIn(jar, page, student.email);
      const [signedIn] = consent.response.headers.getSetCookie();
      expect(signedIn).to.match(/^sg_session=sgss_[A-Za-z0-9_-]{43}; Max-Age=43[12]\d\d; Path=\/; HttpOnly; SameSite=Lax$/);
    });

    it('sets __Host-sg_session with Secure on an https origin (behind a trusted proxy)', async () => {
      const { db } = scratch();
      const proxied = await startTestServer(scratch(), { trustProxy: true });
      try {
        const secureSite = await createSite(db, { origin: `https://secure-${proxied.port}.example`, name: 'Secure School', subdomain: `secure-${proxied.port}` });
        const client = (
          await createClient(db, secureSite.id, { name: 'Secure Buddy', audience: 'member', confidential: false, scopes: ['openid', 'account:read'], redirectUris: [MEMBER_REDIRECT] })
        ).client;
        await grantRole(db, secureSite.id, student.id, 'student');
        const headers = { Host: `secure-${proxied.port}.example`, 'X-Forwarded-Proto': 'https' };
        const url = buildAuthorizationUrl(options({ origin: secureSite.origin, clientId: client.clientId, scope: 'openid account:read' }));
        const page = await rawRequest(proxied.port, { path: `${url.pathname}${url.search}`, headers });
        expect(page.status).to.equal(200);
        const [cookie = ''] = page.headers['set-cookie'] ?? [];
        expect(cookie).to.match(/^__Host-sg_session=sgss_[A-Za-z0-9_-]{43}; Max-Age=3[56]\d\d; Path=\/; Secure; HttpOnly; SameSite=Lax$/);
        const form = findForm(page.body, '/oauth/authorize/sign-in');
        const body = new URLSearchParams([...(form?.fields ?? []), ['email', student.email], ['password', PASSWORD]]).toString();
        const consent = await rawRequest(proxied.port, {
          method: 'POST',
          path: '/oauth/authorize/sign-in',
          headers: { ...headers, cookie: cookie.split(';')[0] ?? '', 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        expect(pageNameOf(consent.body)).to.equal('consent');
        expect(consent.headers['set-cookie']?.[0]).to.match(/^__Host-sg_session=sgss_[A-Za-z0-9_-]{43}; Max-Age=43[12]\d\d; Path=\/; Secure; HttpOnly; SameSite=Lax$/);
      } finally {
        await proxied.stop();
      }
    });

    it('a session of site A does not sign anyone in at site B', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      await authorizeViaPages(options({ jar }));
      const token = jar.get(siteA.origin, 'sg_session') ?? '';
      expect(await findLiveSession(db, siteA.id, token)).to.not.equal(null);
      expect(await findLiveSession(db, siteB.id, token)).to.equal(null);
      // Present A's cookie to B (as a browser would if both sites shared a host): B shows its sign-in page.
      const atB = new CookieJar();
      atB.set(siteB.origin, 'sg_session', token);
      const answer = await browserRequest(atB, buildAuthorizationUrl(options({ origin: siteB.origin, clientId: memberClientB.clientId, scope: 'openid' })));
      expectPage(answer, 200, 'sign-in');
      expect(atB.get(siteB.origin, 'sg_session')).to.not.equal(token);
    });
  });
});
