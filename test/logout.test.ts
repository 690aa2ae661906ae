import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { revokeApplicationTokens } from '../src/clients/applications.js';
import { ConfigError } from '../src/config/config-error.js';
import { loadConfig } from '../src/config/config.js';
import { prune } from '../src/housekeeping/prune.js';
import { startLogoutDeliveryJob } from '../src/oauth/logout/delivery-job.js';
import { createLogger } from '../src/shared/logger.js';
import { revokeRole } from '../src/people/members.js';
import type { User } from '../src/accounts/users.js';
import { idTokenSigner } from '../src/oauth/id-token.js';
import { deliverDueLogouts, MAX_DELIVERY_ATTEMPTS } from '../src/oauth/logout/deliver.js';
import { BACKCHANNEL_LOGOUT_EVENT } from '../src/oauth/logout/logout-token.js';
import { setMetadataDocumentHosts } from '../src/sites/registration-policy.js';
import type { Site } from '../src/sites/sites.js';
import {
  browserRequest,
  buildAuthorizationUrl,
  CookieJar,
  createPkcePair,
  findForm,
  submitForm,
  walkAuthorizationPages,
  type BrowserAnswer,
} from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { discover, makeClient, makeUser, PASSWORD, postForm, REDIRECT_URI, type TestClient } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';
import { useTrustedDocumentServer } from './support/test-ca.js';

const POST_LOGOUT_URI = 'https://rp.example/logged-out';

interface Received {
  body: URLSearchParams;
  contentType: string | undefined;
}

/** A receiver path: answers with the statuses given in turn (the last one repeats), or never when 'hang'. */
function receiver(answers: Array<number | 'hang'>, received: Received[]): (request: IncomingMessage, response: ServerResponse) => void {
  let calls = 0;
  return (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ body: new URLSearchParams(Buffer.concat(chunks).toString('utf8')), contentType: request.headers['content-type'] });
      const answer = answers[Math.min(calls, answers.length - 1)] ?? 200;
      calls += 1;
      if (answer === 'hang') return;
      response.writeHead(answer).end();
    });
  };
}

function page(answer: BrowserAnswer): { status: number; html: string; name: string | null } {
  if (answer.kind !== 'page') throw new Error(`expected a page, got a ${answer.status} redirect to ${answer.location.href}`);
  return { status: answer.status, html: answer.html, name: /<main\b[^>]*\bdata-page="([a-z-]+)"/.exec(answer.html)?.[1] ?? null };
}

/**
 * OpenID Connect RP-Initiated Logout 1.0 and Back-Channel Logout 1.0 (docs/logout.md): sid in id_tokens, the
 * end_session endpoint with its confirmation page and its refusals, and the outbox delivering logout tokens to a local
 * HTTPS receiver (trusted through the test CA, on a loopback address the site allowlists, as for metadata documents).
 */
describe('logout', () => {
  const trusted = useTrustedDocumentServer();

  for (const variant of ['A', 'B'] as const) describeEachDatabase(`RP-Initiated and Back-Channel Logout, variant ${variant}`, (scratch) => {
    /** Variant B runs the core cases; the delivery mechanics do not depend on the variant. */
    const itA = (title: string, fn: Mocha.AsyncFunc): void => {
      if (variant === 'A') it(title, fn);
    };
    let server: TestServer;
    let site: Site;
    let as: oauth.AuthorizationServer;
    let member: User;
    let app: TestClient;
    let prefix: string;
    const received = new Map<string, Received[]>();
    const db = () => scratch().db;

    /** A receiver at a fresh path; returns its URL and what it received. */
    function serveReceiver(name: string, answers: Array<number | 'hang'> = [200]): { uri: string; got: Received[] } {
      const pathname = `${prefix}/${name}`;
      const got: Received[] = [];
      received.set(pathname, got);
      trusted.server.route(pathname, receiver(answers, got));
      return { uri: trusted.server.url(pathname), got };
    }

    async function setLogoutAddresses(client: TestClient, backchannelUri: string | null, postLogoutUris: string[] = [POST_LOGOUT_URI]): Promise<void> {
      await db()('oauth_clients')
        .where({ id: client.client.ref })
        .update({ post_logout_redirect_uris: JSON.stringify(postLogoutUris), backchannel_logout_uri: backchannelUri });
    }

    async function newApp(name: string, backchannelUri: string | null): Promise<TestClient> {
      const client = await makeClient(db(), site, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'account:read'], name });
      await setLogoutAddresses(client, backchannelUri);
      return client;
    }

    /** Signs in through the pages in `jar` and exchanges the code with oauth4webapi: the tokens a real client holds. */
    async function signIn(jar: CookieJar, client: TestClient = app, user: User = member): Promise<{ idToken: string; refreshToken: string; accessToken: string }> {
      const { verifier, challenge } = createPkcePair();
      const nonce = oauth.generateRandomNonce();
      const state = oauth.generateRandomState();
      const url = buildAuthorizationUrl({ origin: site.origin, clientId: client.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid profile', email: user.email, password: PASSWORD, codeChallenge: challenge, state, nonce });
      const redirect = await walkAuthorizationPages(url, { origin: site.origin, email: user.email, password: PASSWORD, jar });
      const params = oauth.validateAuthResponse(as, client.oauthClient, redirect.location, state);
      const response = await oauth.authorizationCodeGrantRequest(as, client.oauthClient, client.auth, params, REDIRECT_URI, verifier, {
        additionalParameters: { resource: site.origin },
        [oauth.allowInsecureRequests]: true,
      });
      const result = await oauth.processAuthorizationCodeResponse(as, client.oauthClient, response, { expectedNonce: nonce, requireIdToken: true });
      return { idToken: result.id_token ?? '', refreshToken: result.refresh_token ?? '', accessToken: result.access_token };
    }

    function logoutUrl(params: Record<string, string>): URL {
      const url = new URL('/oauth/logout', site.origin);
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return url;
    }

    async function sessionOf(sid: string): Promise<{ revoked_at: unknown } | undefined> {
      return db()('sign_in_sessions').where({ sid }).first('revoked_at');
    }

    async function jwks(): Promise<ReturnType<typeof createLocalJWKSet>> {
      const response = await fetch(new URL('/.well-known/jwks.json', site.origin));
      return createLocalJWKSet((await response.json()) as { keys: JWK[] });
    }

    /** Verifies a logout token as an RP must (Back-Channel Logout 1.0 2.6) and returns its claims. */
    async function verifyLogoutToken(token: string, client: TestClient): Promise<Record<string, unknown>> {
      const { payload, protectedHeader } = await jwtVerify(token, await jwks(), { issuer: site.origin, audience: client.client.clientId, algorithms: ['ES256'], typ: 'logout+jwt' });
      expect(protectedHeader.kid).to.be.a('string');
      expect(payload.events).to.deep.equal({ [BACKCHANNEL_LOGOUT_EVENT]: {} });
      expect(payload).to.not.have.property('nonce');
      expect(payload.jti).to.be.a('string');
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).to.be.within(1, 120);
      return payload as Record<string, unknown>;
    }

    async function deliveriesOf(client: TestClient): Promise<Array<{ attempts: number; delivered_at: unknown; abandoned_at: unknown; last_error: string | null }>> {
      return db()('logout_deliveries').where({ client_ref: client.client.ref }).orderBy('id').select('attempts', 'delivered_at', 'abandoned_at', 'last_error');
    }

    before(async function () {
      this.timeout(60000);
      prefix = `/${scratch().kind}-${variant}`;
      server = await startTestServer(scratch(), { variant });
      site = server.siteA;
      // The test address policy of metadata documents: the loopback receiver's host is allowlisted by the site.
      await setMetadataDocumentHosts(db(), site.id, ['localhost']);
      as = await discover(site.origin);
      member = await makeUser(db(), site, ['student'], 'Lou Logout');
      app = await newApp('Logout app', serveReceiver('main').uri);
    });
    after(async () => server.stop());

    it('advertises the end_session endpoint, back-channel logout with sid, and sid among the claims', async () => {
      for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
        const metadata = (await (await fetch(new URL(path, site.origin))).json()) as Record<string, unknown>;
        expect(metadata, path).to.include({ end_session_endpoint: `${site.origin}/oauth/logout`, backchannel_logout_supported: true, backchannel_logout_session_supported: true });
        expect(metadata.claims_supported, path).to.include('sid');
      }
    });

    it('puts the session id in the id_token, the code and every pair of the grant, refreshed ones included', async () => {
      const jar = new CookieJar();
      const tokens = await signIn(jar);
      const { sid } = decodeJwt(tokens.idToken);
      expect(sid).to.be.a('string').with.length.greaterThan(10);
      expect(await sessionOf(String(sid))).to.deep.include({ revoked_at: null });
      const refreshed = await postForm(as.token_endpoint ?? '', { grant_type: 'refresh_token', refresh_token: tokens.refreshToken, client_id: app.client.clientId });
      expect(refreshed.status).to.equal(200);
      const pairs: Array<{ sid: string | null }> = await db()('token_pairs').where({ client_ref: app.client.ref, user_id: member.id, sid }).select('sid');
      expect(pairs).to.have.length(2);
      expect(await db()('authorization_codes').where({ sid }).count({ n: '*' }).first()).to.deep.equal({ n: 1 });
      // A second sign-in in another browser is another session: another sid.
      const other = await signIn(new CookieJar());
      expect(decodeJwt(other.idToken).sid).to.be.a('string').and.not.equal(sid);
    });

    it('ends the session at once for a hint that names it, returns to the registered address with state, and posts a valid logout token', async () => {
      const jar = new CookieJar();
      const tokens = await signIn(jar);
      const { sid } = decodeJwt(tokens.idToken);
      const before = (await deliveriesOf(app)).length;
      const answer = await browserRequest(jar, logoutUrl({ id_token_hint: tokens.idToken, post_logout_redirect_uri: POST_LOGOUT_URI, state: 'st&ate 1' }));
      expect(answer.kind).to.equal('redirect');
      if (answer.kind !== 'redirect') return;
      expect(answer.status).to.equal(302);
      expect(answer.location.origin + answer.location.pathname).to.equal(POST_LOGOUT_URI);
      expect(answer.location.searchParams.get('state')).to.equal('st&ate 1');
      expect((await sessionOf(String(sid)))?.revoked_at).to.not.equal(null);
      // The cookie no longer signs anyone in: the endpoint now says "signed out".
      expect(page(await browserRequest(jar, logoutUrl({}))).name).to.equal('signed-out');

      // Queued in the request, delivered by the outbox.
      expect(await deliveriesOf(app)).to.have.length(before + 1);
      const got = received.get(`${prefix}/main`) ?? [];
      const already = got.length;
      const outcomes = await deliverDueLogouts(db());
      expect([...outcomes.values()]).to.include('delivered');
      expect(got).to.have.length(already + 1);
      const delivery = got.at(-1);
      expect(delivery?.contentType).to.equal('application/x-www-form-urlencoded');
      const claims = await verifyLogoutToken(delivery?.body.get('logout_token') ?? '', app);
      expect(claims).to.include({ sub: String(member.id), sid });
      const rows = await deliveriesOf(app);
      expect(rows.at(-1)).to.include({ attempts: 1, last_error: null });
      expect(rows.at(-1)?.delivered_at).to.not.equal(null);
      // The grant itself stays (a standing approval): its refresh token still works.
      const refreshed = await postForm(as.token_endpoint ?? '', { grant_type: 'refresh_token', refresh_token: tokens.refreshToken, client_id: app.client.clientId });
      expect(refreshed.status).to.equal(200);
    });

    it('works with openid-client: its end-session URL from discovery signs out and comes back with state', async () => {
      const jar = new CookieJar();
      const tokens = await signIn(jar);
      const { sid } = decodeJwt(tokens.idToken);
      const config = await openid.discovery(new URL(site.origin), app.client.clientId, undefined, openid.None(), { execute: [openid.allowInsecureRequests] });
      const url = openid.buildEndSessionUrl(config, { id_token_hint: tokens.idToken, post_logout_redirect_uri: POST_LOGOUT_URI, state: 'from-openid-client' });
      expect(url.origin + url.pathname).to.equal(`${site.origin}/oauth/logout`);
      const answer = await browserRequest(jar, url);
      expect(answer.kind === 'redirect' && answer.location.href).to.equal(`${POST_LOGOUT_URI}?state=from-openid-client`);
      expect((await sessionOf(String(sid)))?.revoked_at).to.not.equal(null);
    });

    itA('accepts an expired id_token_hint of this site', async () => {
      const jar = new CookieJar();
      const tokens = await signIn(jar);
      const { sid, sub } = decodeJwt(tokens.idToken);
      const sign = await idTokenSigner(db(), site.id);
      const expired = await sign({ site, clientId: app.client.clientId, claims: { sub: String(sub), org_id: String(site.id), roles: [] }, nonce: null, authTime: null, sid: String(sid) }, new Date(Date.now() - 3 * 60 * 60 * 1000));
      const answer = await browserRequest(jar, logoutUrl({ id_token_hint: expired, post_logout_redirect_uri: POST_LOGOUT_URI }));
      expect(answer.kind).to.equal('redirect');
      if (answer.kind === 'redirect') expect(answer.location.href).to.equal(POST_LOGOUT_URI);
      expect((await sessionOf(String(sid)))?.revoked_at).to.not.equal(null);
    });

    it('asks for confirmation without a hint, then signs out on the confirmation post and returns with state', async () => {
      const jar = new CookieJar();
      const tokens = await signIn(jar);
      const { sid } = decodeJwt(tokens.idToken);
      const state = '"><script>alert(1)</script>';
      const url = logoutUrl({ client_id: app.client.clientId, post_logout_redirect_uri: POST_LOGOUT_URI, state });
      const shown = page(await browserRequest(jar, url));
      expect(shown).to.include({ status: 200, name: 'sign-out' });
      expect(shown.html).to.not.include('<script>alert(1)');
      expect(shown.html).to.include(member.email);
      expect((await sessionOf(String(sid)))?.revoked_at).to.equal(null);
      const form = findForm(shown.html, '/oauth/logout/confirm');
      expect(form, 'the confirmation form').to.not.equal(undefined);
      if (!form) return;

      // Without the CSRF token (a cross-site post) nothing happens.
      const forged = page(await browserRequest(jar, new URL('/oauth/logout/confirm', site.origin), { method: 'POST', form: { client_id: app.client.clientId } }));
      expect(forged).to.include({ status: 403, name: 'error' });
      expect((await sessionOf(String(sid)))?.revoked_at).to.equal(null);

      const confirmed = await submitForm(jar, url, form, {});
      expect(confirmed.kind).to.equal('redirect');
      if (confirmed.kind !== 'redirect') return;
      expect(confirmed.status).to.equal(303);
      expect(confirmed.location.searchParams.get('state')).to.equal(state);
      expect(confirmed.location.origin + confirmed.location.pathname).to.equal(POST_LOGOUT_URI);
      expect((await sessionOf(String(sid)))?.revoked_at).to.not.equal(null);
    });

    itA('asks for confirmation when the hint names another session, and shows "signed out" without any session', async () => {
      const jar = new CookieJar();
      await signIn(jar);
      const otherTokens = await signIn(new CookieJar());
      expect(page(await browserRequest(jar, logoutUrl({ id_token_hint: otherTokens.idToken })))).to.include({ status: 200, name: 'sign-out' });

      const nobody = await browserRequest(new CookieJar(), logoutUrl({}));
      expect(page(nobody)).to.include({ status: 200, name: 'signed-out' });
      // No session, but a verified request: back to the application.
      const back = await browserRequest(new CookieJar(), logoutUrl({ client_id: app.client.clientId, post_logout_redirect_uri: POST_LOGOUT_URI, state: 'x' }));
      expect(back.kind === 'redirect' && back.location.href).to.equal(`${POST_LOGOUT_URI}?state=x`);
    });

    itA('retries a cross-site POST without the session cookie as a GET, and takes a form POST with the cookie', async () => {
      const jar = new CookieJar();
      const tokens = await signIn(jar);
      const form = { id_token_hint: tokens.idToken, post_logout_redirect_uri: POST_LOGOUT_URI, state: 's' };
      const cookieless = await browserRequest(new CookieJar(), new URL('/oauth/logout', site.origin), { method: 'POST', form });
      expect(cookieless.kind).to.equal('redirect');
      if (cookieless.kind !== 'redirect') return;
      expect(cookieless.status).to.equal(303);
      expect(cookieless.location.pathname).to.equal('/oauth/logout');
      expect(Object.fromEntries(cookieless.location.searchParams)).to.deep.equal(form);
      const posted = await browserRequest(jar, new URL('/oauth/logout', site.origin), { method: 'POST', form });
      expect(posted.kind === 'redirect' && posted.location.href).to.equal(`${POST_LOGOUT_URI}?state=s`);
    });

    it('never redirects for a foreign, tampered or mismatched hint; the session stays', async () => {
      const jar = new CookieJar();
      const tokens = await signIn(jar);
      const { sid, sub } = decodeJwt(tokens.idToken);
      const [head, body, signature = ''] = tokens.idToken.split('.');
      const tampered = `${head}.${body}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
      // Signed with another site's key (claiming this site as issuer), and this site's id_token re-signed nowhere.
      const otherSiteSigner = await idTokenSigner(db(), server.siteB.id);
      const foreign = await otherSiteSigner({ site, clientId: app.client.clientId, claims: { sub: String(sub), org_id: String(site.id), roles: [] }, nonce: null, authTime: null, sid: String(sid) });
      const otherApp = await newApp('Other app', null);
      for (const [label, params] of [
        ['tampered', { id_token_hint: tampered, post_logout_redirect_uri: POST_LOGOUT_URI }],
        ['another site key', { id_token_hint: foreign, post_logout_redirect_uri: POST_LOGOUT_URI }],
        ['not a JWT', { id_token_hint: 'not-a-jwt', post_logout_redirect_uri: POST_LOGOUT_URI }],
        ['client_id differs from aud', { id_token_hint: tokens.idToken, client_id: otherApp.client.clientId, post_logout_redirect_uri: POST_LOGOUT_URI }],
        ['unknown client_id', { client_id: 'no-such-client', post_logout_redirect_uri: POST_LOGOUT_URI }],
      ] as const) {
        const answer = await browserRequest(jar, logoutUrl(params));
        expect(answer.kind, label).to.equal('page');
        expect(page(answer), label).to.include({ status: 400, name: 'error' });
        expect(answer.response.headers.get('location'), label).to.equal(null);
      }
      expect(decodeProtectedHeader(tokens.idToken).typ).to.equal('JWT');
      expect((await sessionOf(String(sid)))?.revoked_at).to.equal(null);
    });

    it('shows an error page, never a redirect, for a post_logout_redirect_uri the client did not register exactly', async () => {
      const jar = new CookieJar();
      const tokens = await signIn(jar);
      const { sid } = decodeJwt(tokens.idToken);
      const variants = [
        'https://rp.example/logged-out/',
        'https://RP.example/logged-out',
        'HTTPS://rp.example/logged-out',
        'https://rp.example/Logged-out',
        'https://rp.example/logged-out?next=https://evil.example',
        'https://rp.example/logged-out#x',
        'https://rp.example/logged%2Dout',
        'https://rp.example/logged-out%20',
        'https://rp.example:443/logged-out',
        'https://rp.example/logged-out/../logged-out',
        'https://rp.example.evil.example/logged-out',
        'https://evil.example/logged-out',
        '//evil.example/logged-out',
        'javascript:alert(1)',
      ];
      for (const uri of variants) {
        const answer = await browserRequest(jar, logoutUrl({ id_token_hint: tokens.idToken, post_logout_redirect_uri: uri, state: 's' }));
        expect(answer.kind, uri).to.equal('page');
        expect(page(answer), uri).to.include({ status: 400, name: 'error' });
      }
      // The registered URI without any way to tell whose it is: refused as well.
      const anonymous = await browserRequest(jar, logoutUrl({ post_logout_redirect_uri: POST_LOGOUT_URI }));
      expect(page(anonymous)).to.include({ status: 400, name: 'error' });
      // A parameter given twice is refused, not guessed.
      const doubled = new URL(logoutUrl({ id_token_hint: tokens.idToken, post_logout_redirect_uri: POST_LOGOUT_URI }));
      doubled.searchParams.append('post_logout_redirect_uri', 'https://evil.example/');
      expect(page(await browserRequest(jar, doubled))).to.include({ status: 400, name: 'error' });
      expect((await sessionOf(String(sid)))?.revoked_at).to.equal(null);
    });

    it('queues a notice when the client revokes its grant at /api/oauth/revoke, with sub and sid', async () => {
      const { uri, got } = serveReceiver('revoked');
      const revokingApp = await newApp('Revoking app', uri);
      const tokens = await signIn(new CookieJar(), revokingApp);
      const { sid } = decodeJwt(tokens.idToken);
      const started = Date.now();
      const revoked = await postForm(as.revocation_endpoint ?? '', { token: tokens.refreshToken, client_id: revokingApp.client.clientId });
      expect(revoked.status).to.equal(200);
      expect(Date.now() - started).to.be.below(20_000);
      expect(await deliveriesOf(revokingApp)).to.have.length(1);
      // Revoking again ends nothing more and queues nothing more.
      await postForm(as.revocation_endpoint ?? '', { token: tokens.refreshToken, client_id: revokingApp.client.clientId });
      expect(await deliveriesOf(revokingApp)).to.have.length(1);
      await deliverDueLogouts(db());
      expect(got).to.have.length(1);
      expect(await verifyLogoutToken(got[0]?.body.get('logout_token') ?? '', revokingApp)).to.include({ sub: String(member.id), sid });
    });

    itA('queues a notice per grant when an operator revokes every token of an application', async () => {
      const { uri } = serveReceiver('operator-revoked');
      const revokedApp = await newApp('Operator-revoked app', uri);
      await signIn(new CookieJar(), revokedApp);
      await signIn(new CookieJar(), revokedApp);
      const { revokedPairs } = await revokeApplicationTokens(db(), site.id, revokedApp.client.clientId);
      expect(revokedPairs).to.equal(2);
      expect(await deliveriesOf(revokedApp)).to.have.length(2);
    });

    itA('queues a notice when signing out from the consent page ("sign in as someone else")', async () => {
      const { uri } = serveReceiver('switch');
      const switchApp = await newApp('Switch app', uri);
      const jar = new CookieJar();
      await signIn(jar, switchApp);
      const { challenge } = createPkcePair();
      const consent = page(await browserRequest(jar, buildAuthorizationUrl({ origin: site.origin, clientId: switchApp.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid', email: member.email, password: PASSWORD, codeChallenge: challenge })));
      expect(consent.name).to.equal('consent');
      const form = findForm(consent.html, '/oauth/authorize/switch-account');
      if (!form) throw new Error('no switch-account form');
      expect(page(await submitForm(jar, new URL(site.origin), form, {})).name).to.equal('sign-in');
      expect(await deliveriesOf(switchApp)).to.have.length(1);
    });

    itA('queues a notice when the member loses the role the client needs', async () => {
      const { uri } = serveReceiver('removed');
      const roleApp = await newApp('Role app', uri);
      const leaver = await makeUser(db(), site, ['student'], 'Lee Leaver');
      await signIn(new CookieJar(), roleApp, leaver);
      await revokeRole(db(), site.id, leaver.id, 'student');
      expect(await deliveriesOf(roleApp)).to.have.length(1);
      expect(await db()('token_pairs').where({ client_ref: roleApp.client.ref }).whereNull('revoked_at').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    });

    itA('retries a failing receiver with backoff: two failures then delivered on the third attempt', async () => {
      const { uri, got } = serveReceiver('flaky', [500, 503, 204]);
      const flakyApp = await newApp('Flaky app', uri);
      const tokens = await signIn(new CookieJar(), flakyApp);
      await postForm(as.revocation_endpoint ?? '', { token: tokens.refreshToken, client_id: flakyApp.client.clientId });
      const t0 = Date.now();
      await deliverDueLogouts(db(), { now: new Date(t0) });
      expect((await deliveriesOf(flakyApp))[0]).to.include({ attempts: 1, last_error: 'answered HTTP 500' });
      // Not due again before the first backoff (30 s).
      await deliverDueLogouts(db(), { now: new Date(t0 + 20_000) });
      expect(got).to.have.length(1);
      await deliverDueLogouts(db(), { now: new Date(t0 + 31_000) });
      expect((await deliveriesOf(flakyApp))[0]).to.include({ attempts: 2, last_error: 'answered HTTP 503' });
      // The second backoff is 60 s.
      await deliverDueLogouts(db(), { now: new Date(t0 + 80_000) });
      expect(got).to.have.length(2);
      await deliverDueLogouts(db(), { now: new Date(t0 + 92_000) });
      const [row] = await deliveriesOf(flakyApp);
      expect(row).to.include({ attempts: 3, last_error: null });
      expect(row?.delivered_at).to.not.equal(null);
      expect(got).to.have.length(3);
      // Each attempt is a fresh token: a new jti every time.
      const jtis = new Set(got.map((delivery) => decodeJwt(delivery.body.get('logout_token') ?? '').jti));
      expect(jtis.size).to.equal(3);
    });

    itA('delivers each attempt once when several instances run the outbox at the same moment', async () => {
      const { uri, got } = serveReceiver('concurrent');
      const concurrentApp = await newApp('Concurrent app', uri);
      for (let grant = 0; grant < 3; grant += 1) {
        const tokens = await signIn(new CookieJar(), concurrentApp);
        await postForm(as.revocation_endpoint ?? '', { token: tokens.refreshToken, client_id: concurrentApp.client.clientId });
      }
      await Promise.all([deliverDueLogouts(db()), deliverDueLogouts(db()), deliverDueLogouts(db())]);
      expect(got).to.have.length(3);
      const rows = await deliveriesOf(concurrentApp);
      expect(rows.map((row) => row.attempts)).to.deep.equal([1, 1, 1]);
      for (const row of rows) expect(row.delivered_at).to.not.equal(null);
    });

    itA('gives up after the last attempt, and never follows a redirect', async () => {
      const { uri, got } = serveReceiver('redirecting', [302]);
      const redirectingApp = await newApp('Redirecting app', uri);
      const tokens = await signIn(new CookieJar(), redirectingApp);
      await postForm(as.revocation_endpoint ?? '', { token: tokens.refreshToken, client_id: redirectingApp.client.clientId });
      let now = Date.now();
      for (let attempt = 0; attempt < MAX_DELIVERY_ATTEMPTS + 1; attempt += 1) {
        await deliverDueLogouts(db(), { now: new Date(now) });
        now += 24 * 60 * 60 * 1000;
      }
      const [row] = await deliveriesOf(redirectingApp);
      expect(row).to.include({ attempts: MAX_DELIVERY_ATTEMPTS, delivered_at: null });
      expect(row?.abandoned_at).to.not.equal(null);
      expect(row?.last_error).to.contain('redirect');
      expect(got).to.have.length(MAX_DELIVERY_ATTEMPTS);
    });

    itA('never makes the member wait for a receiver that hangs; the attempt times out and is retried', async () => {
      const { uri, got } = serveReceiver('hanging', ['hang']);
      const hangingApp = await newApp('Hanging app', uri);
      const jar = new CookieJar();
      const tokens = await signIn(jar, hangingApp);
      const started = Date.now();
      const answer = await browserRequest(jar, logoutUrl({ id_token_hint: tokens.idToken, post_logout_redirect_uri: POST_LOGOUT_URI }));
      expect(answer.kind).to.equal('redirect');
      expect(Date.now() - started).to.be.below(20_000);
      const outcomes = await deliverDueLogouts(db(), { timeoutMs: 300 });
      expect([...outcomes.values()]).to.include('retry');
      expect(got).to.have.length(1);
      expect((await deliveriesOf(hangingApp))[0]?.last_error).to.contain('no answer within 300 ms');
    });

    itA('refuses a loopback receiver unless the site allowlists its host (the metadata-document address policy)', async () => {
      const { uri, got } = serveReceiver('private');
      const privateApp = await newApp('Private app', uri);
      const tokens = await signIn(new CookieJar(), privateApp);
      await setMetadataDocumentHosts(db(), site.id, []);
      try {
        await postForm(as.revocation_endpoint ?? '', { token: tokens.refreshToken, client_id: privateApp.client.clientId });
        await deliverDueLogouts(db());
        const [row] = await deliveriesOf(privateApp);
        expect(row?.last_error).to.match(/not a public address/);
        expect(row?.delivered_at).to.equal(null);
        expect(got).to.have.length(0);
      } finally {
        await setMetadataDocumentHosts(db(), site.id, ['localhost']);
      }
      // The same literal address is refused outright without the allowlist.
      const literalApp = await newApp('Literal app', trusted.server.url(`${prefix}/private`, '127.0.0.1'));
      const literal = await signIn(new CookieJar(), literalApp);
      await postForm(as.revocation_endpoint ?? '', { token: literal.refreshToken, client_id: literalApp.client.clientId });
      await deliverDueLogouts(db());
      expect((await deliveriesOf(literalApp))[0]?.last_error).to.match(/not a public address/);
    });

    itA('the delivery job of a server delivers a queued notice off the request path, and stops cleanly', async () => {
      expect(loadConfig({}).logoutDeliveryIntervalSeconds).to.equal(5);
      expect(loadConfig({ SCHOOLGATE_LOGOUT_DELIVERY_INTERVAL_SECONDS: '0' }).logoutDeliveryIntervalSeconds).to.equal(0);
      expect(() => loadConfig({ SCHOOLGATE_LOGOUT_DELIVERY_INTERVAL_SECONDS: 'often' })).to.throw(ConfigError, /SCHOOLGATE_LOGOUT_DELIVERY_INTERVAL_SECONDS/);
      const { uri, got } = serveReceiver('job');
      const jobApp = await newApp('Job app', uri);
      const tokens = await signIn(new CookieJar(), jobApp);
      const job = startLogoutDeliveryJob(db(), createLogger('silent'), { intervalSeconds: 1 });
      try {
        await postForm(as.revocation_endpoint ?? '', { token: tokens.refreshToken, client_id: jobApp.client.clientId });
        for (let waited = 0; got.length === 0 && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await job.stop();
      }
      expect(got).to.have.length(1);
      expect((await deliveriesOf(jobApp))[0]?.delivered_at).to.not.equal(null);
    });

    itA('the prune deletes delivered and abandoned notices after the retention, never a pending one', async () => {
      const counts = async () => ({
        finished: Number((await db()('logout_deliveries').where((q) => q.whereNotNull('delivered_at').orWhereNotNull('abandoned_at')).count({ n: '*' }).first())?.n),
        pending: Number((await db()('logout_deliveries').whereNull('delivered_at').whereNull('abandoned_at').count({ n: '*' }).first())?.n),
      });
      const before = await counts();
      expect(before.finished).to.be.above(0);
      expect(before.pending).to.be.above(0);
      const report = await prune(db(), { now: new Date(Date.now() + 3 * 24 * 60 * 60 * 1000), retentionDays: 7 });
      expect(report.deleted.logout_deliveries).to.equal(0);
      const later = await prune(db(), { now: new Date(Date.now() + 8 * 24 * 60 * 60 * 1000), retentionDays: 7 });
      expect(later.deleted.logout_deliveries).to.equal(before.finished);
      expect(await counts()).to.deep.equal({ finished: 0, pending: before.pending });
    });
  });
});
