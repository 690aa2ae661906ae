import http from 'node:http';
import { expect } from 'chai';
import { grantRole } from '../../src/accounts/roles.js';
import { createUser, type User } from '../../src/accounts/users.js';
import { createClient, type OAuthClient } from '../../src/clients/clients.js';
import type { Site } from '../../src/sites/sites.js';
import { buildAuthorizationUrl, browserRequest, createPkcePair, findForm, pageMessage, pageNameOf, submitForm, type AuthorizeViaPagesOptions, type BrowserAnswer, type CookieJar } from './authorize-flow.js';
import type { ScratchDatabase } from './databases.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * The authorization endpoint's pages as a browser meets them: a server with two sites, the people who sign in (a
 * student, an operator and a lecturer at site A; an outsider who is a student at site B only), the clients they
 * authorize, and the steps of the flow (open the sign-in page, sign in, reach the consent page).
 */

export const PASSWORD = 'correct horse battery staple';
export const MEMBER_REDIRECT = 'http://127.0.0.1:8765/callback';
export const MEMBER_REDIRECT_WITH_QUERY = 'https://buddy.example.com/cb?source=sg';
export const OPERATOR_REDIRECT = 'https://ops.example.com/oauth/callback';

export function expectPage(answer: BrowserAnswer, status: number, page: string): asserts answer is Extract<BrowserAnswer, { kind: 'page' }> {
  if (answer.kind !== 'page') expect.fail(`expected the ${page} page (HTTP ${status}), got a ${answer.status} redirect to ${answer.location.href}`);
  expect(answer.response.headers.get('location'), 'no redirect').to.equal(null);
  expect(pageNameOf(answer.html), `page (message: ${pageMessage(answer.html)})`).to.equal(page);
  expect(answer.status).to.equal(status);
  expect(answer.response.headers.get('content-type')).to.match(/^text\/html/);
}

export function expectRedirect(answer: BrowserAnswer): asserts answer is Extract<BrowserAnswer, { kind: 'redirect' }> {
  if (answer.kind !== 'redirect') expect.fail(`expected a redirect, got the ${pageNameOf(answer.html)} page (HTTP ${answer.status}): ${pageMessage(answer.html)}`);
}

export function expectPageSecurityHeaders(response: Response, redirectOrigin?: string): void {
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
export function rawRequest(
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

type Page = Extract<BrowserAnswer, { kind: 'page' }>;

export interface AuthorizePages {
  readonly server: TestServer;
  readonly siteA: Site;
  readonly siteB: Site;
  readonly student: User;
  readonly operator: User;
  readonly outsider: User;
  readonly lecturer: User;
  /** A public member client of site A with two redirect URIs (one with a query). */
  readonly memberClient: OAuthClient;
  /** A confidential member client of site A with one redirect URI. */
  readonly singleRedirectClient: OAuthClient;
  readonly operatorClient: OAuthClient;
  /** A public member client of site B. */
  readonly memberClientB: OAuthClient;
  readonly pkce: { verifier: string; challenge: string };
  /** The student's authorization request for the member client, with `overrides`. */
  options(overrides?: Partial<AuthorizeViaPagesOptions>): AuthorizeViaPagesOptions;
  /** GET /oauth/authorize in a browser (jar) and expect the sign-in page. */
  openSignIn(jar: CookieJar, overrides?: Partial<AuthorizeViaPagesOptions>): Promise<Page>;
  signIn(jar: CookieJar, page: Page, email: string, password?: string): Promise<BrowserAnswer>;
  openConsent(jar: CookieJar, overrides?: Partial<AuthorizeViaPagesOptions>, email?: string): Promise<Page>;
  consentForm(page: Page): NonNullable<ReturnType<typeof findForm>>;
}

/** Declares the server's start and stop around the suite, and empties the rate-limit counters before each test. */
export function useAuthorizePages(scratch: () => ScratchDatabase): AuthorizePages {
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

  return {
    get server() {
      return server;
    },
    get siteA() {
      return siteA;
    },
    get siteB() {
      return siteB;
    },
    get student() {
      return student;
    },
    get operator() {
      return operator;
    },
    get outsider() {
      return outsider;
    },
    get lecturer() {
      return lecturer;
    },
    get memberClient() {
      return memberClient;
    },
    get singleRedirectClient() {
      return singleRedirectClient;
    },
    get operatorClient() {
      return operatorClient;
    },
    get memberClientB() {
      return memberClientB;
    },
    pkce,
    options,
    openSignIn,
    signIn,
    openConsent,
    consentForm,
  };
}
