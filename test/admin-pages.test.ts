import { expect } from 'chai';
import type { User } from '../src/accounts/users.js';
import { findClientWithSecret } from '../src/clients/clients.js';
import { insertPair, newGrantId } from '../src/oauth/tokens/store.js';
import { getSite, type Site } from '../src/sites/sites.js';
import { AdminApi } from './support/admin.js';
import { useAdminServer } from './support/admin-fixture.js';
import { browserRequest, CookieJar, parseForms, type BrowserAnswer, type HtmlForm } from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { makeClient, makeUser, PASSWORD, postForm, type TestClient } from './support/oauth-fixtures.js';

type Page = Extract<BrowserAnswer, { kind: 'page' }>;

function pageName(html: string): string | null {
  return /<main\b[^>]*\bdata-page="([a-z-]+)"/.exec(html)?.[1] ?? null;
}

function expectPage(answer: BrowserAnswer, name: string, status = 200): Page {
  if (answer.kind !== 'page') throw new Error(`expected the ${name} page, got a ${answer.status} redirect to ${answer.location.href}`);
  expect(pageName(answer.html), answer.html.slice(0, 2000)).to.equal(name);
  expect(answer.status, answer.html.slice(0, 2000)).to.equal(status);
  return answer;
}

function formFor(html: string, action: string): HtmlForm {
  const form = parseForms(html).find((candidate) => candidate.action === action);
  if (!form) throw new Error(`no form posting to ${action}`);
  return form;
}

/** The hidden fields of the admin forms; parseForms also lists checkboxes and radios, which a browser sends only when checked. */
const HIDDEN_FIELDS = new Set(['csrf_token', 'return_to', 'version']);

/** Posts a form of a page as a browser does: its hidden fields, then `values` (repeated names allowed). */
async function post(jar: CookieJar, origin: string, form: HtmlForm, values: Array<[string, string]>): Promise<BrowserAnswer> {
  const hidden = [...form.fields].filter(([name]) => HIDDEN_FIELDS.has(name) && !values.some(([valueName]) => valueName === name));
  return browserRequest(jar, new URL(form.action, origin), { method: 'POST', form: [...hidden, ...values] });
}

describeEachDatabase('admin area pages (/admin)', (scratch) => {
  const admin = useAdminServer(scratch);

  async function signIn(email: string, jar = new CookieJar(), returnTo = '/admin'): Promise<{ jar: CookieJar; answer: BrowserAnswer }> {
    const page = expectPage(await browserRequest(jar, new URL(returnTo, admin.origin)), 'admin-sign-in');
    const answer = await post(jar, admin.origin, formFor(page.html, '/admin/sign-in'), [
      ['email', email],
      ['password', PASSWORD],
    ]);
    return { jar, answer };
  }

  async function operatorJar(): Promise<CookieJar> {
    const operator = await makeUser(scratch().db, admin.server.siteA, ['operator'], 'Opal Operator');
    const { jar, answer } = await signIn(operator.email);
    expect(answer.kind).to.equal('redirect');
    return jar;
  }

  it('shows the sign-in page with the authorize pages’ security headers, and no script', async () => {
    const answer = expectPage(await browserRequest(new CookieJar(), new URL('/admin', admin.origin)), 'admin-sign-in');
    const headers = answer.response.headers;
    expect(headers.get('content-security-policy')).to.equal("default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    expect(headers.get('x-frame-options')).to.equal('DENY');
    expect(headers.get('cache-control')).to.equal('no-store');
    expect(headers.get('referrer-policy')).to.equal('no-referrer');
    expect(headers.getSetCookie().join(';')).to.match(/sg_session=.*HttpOnly; SameSite=Lax/);
    expect(answer.html).to.not.match(/<script/i);
    expect(formFor(answer.html, '/admin/sign-in').fields.get('csrf_token')).to.be.a('string').with.length.greaterThan(20);
  });

  it('signs an operator in (303 back to the page asked for) and refuses students, wrong passwords and forged forms', async () => {
    const student = await makeUser(scratch().db, admin.server.siteA, ['student'], 'Sam Student');
    const refused = await signIn(student.email);
    expect(expectPage(refused.answer, 'admin-sign-in', 403).html).to.contain('is not an owner, operator or staff member');

    const operator = await makeUser(scratch().db, admin.server.siteA, ['staff'], 'Stella Staff');
    const jar = new CookieJar();
    const page = expectPage(await browserRequest(jar, new URL('/admin/settings', admin.origin)), 'admin-sign-in');
    const form = formFor(page.html, '/admin/sign-in');
    expect(form.fields.get('return_to')).to.equal('/admin/settings');
    const wrong = await post(jar, admin.origin, form, [
      ['email', operator.email],
      ['password', 'not-the-password'],
    ]);
    expect(expectPage(wrong, 'admin-sign-in', 400).html).to.contain('The email or password is not correct.');
    const forged = await post(new CookieJar(), admin.origin, form, [
      ['email', operator.email],
      ['password', PASSWORD],
    ]);
    expectPage(forged, 'admin-error', 403);
    const open = await post(jar, admin.origin, form, [
      ['email', operator.email],
      ['password', PASSWORD],
      ['return_to', 'https://evil.example/admin'],
    ]);
    expect(open.kind === 'redirect' && open.location.href).to.equal(`${admin.origin}/admin`);
    const ok = await signIn(operator.email, new CookieJar(), '/admin/settings');
    expect(ok.answer.kind === 'redirect' && ok.answer.status).to.equal(303);
    expect(ok.answer.kind === 'redirect' && ok.answer.location.href).to.equal(`${admin.origin}/admin/settings`);
    expectPage(await browserRequest(ok.jar, new URL('/admin/settings', admin.origin)), 'admin-settings');
  });

  it('rate limits sign-in attempts per account with the shared limits (429)', async () => {
    const operator = await makeUser(scratch().db, admin.server.siteA, ['operator'], 'Limited Lou');
    const jar = new CookieJar();
    const form = formFor(expectPage(await browserRequest(jar, new URL('/admin', admin.origin)), 'admin-sign-in').html, '/admin/sign-in');
    let last: BrowserAnswer | undefined;
    for (let attempt = 0; attempt < 6; attempt += 1) {
      last = await post(jar, admin.origin, form, [
        ['email', operator.email],
        ['password', 'wrong-password'],
      ]);
    }
    if (!last) throw new Error('no attempt');
    expectPage(last, 'admin-error', 429);
    expect(last.response.headers.get('retry-after')).to.match(/^\d+$/);
  });

  it('switches the MCP connections beta on, which shows Developers › OAuth applications', async () => {
    const jar = await operatorJar();
    const home = expectPage(await browserRequest(jar, new URL('/admin', admin.origin)), 'admin-home');
    expect(home.html).to.not.contain('href="/admin/developers/oauth-applications"');
    expectPage(await browserRequest(jar, new URL('/admin/developers/oauth-applications', admin.origin)), 'admin-error', 404);

    const settings = expectPage(await browserRequest(jar, new URL('/admin/settings', admin.origin)), 'admin-settings');
    const form = formFor(settings.html, '/admin/settings');
    const noCsrf = await post(jar, admin.origin, { ...form, fields: new Map([...form.fields].filter(([name]) => name !== 'csrf_token')) }, [['mcp_connections_beta', 'on']]);
    expectPage(noCsrf, 'admin-error', 403);
    expect((await getSite(scratch().db, admin.server.siteA.id)).mcpConnectionsEnabled).to.equal(false);

    const saved = await post(jar, admin.origin, form, [['mcp_connections_beta', 'on']]);
    expect(saved.kind === 'redirect' && saved.location.pathname).to.equal('/admin/settings');
    expect((await getSite(scratch().db, admin.server.siteA.id)).mcpConnectionsEnabled).to.equal(true);
    // The same form again is based on an old version: the operator sees the current settings instead of overwriting.
    const stale = await post(jar, admin.origin, form, []);
    expect(expectPage(stale, 'admin-settings', 409).html).to.contain('Someone else changed the settings');
    expect((await getSite(scratch().db, admin.server.siteA.id)).mcpConnectionsEnabled).to.equal(true);
    expect(expectPage(await browserRequest(jar, new URL('/admin', admin.origin)), 'admin-home').html).to.contain('href="/admin/developers/oauth-applications"');
  });

  it('creates public and confidential applications, shows the client_id and the secret once, lists and deletes them', async () => {
    const jar = await operatorJar();
    const newPage = expectPage(await browserRequest(jar, new URL('/admin/developers/oauth-applications/new', admin.origin)), 'admin-application-new');
    const form = formFor(newPage.html, '/admin/developers/oauth-applications');

    const invalid = await post(jar, admin.origin, form, [
      ['name', 'Bad'],
      ['audience', 'member'],
      ['scopes', 'school:read'],
      ['redirect_uris', 'http://not-loopback.example/cb'],
    ]);
    const invalidPage = expectPage(invalid, 'admin-application-new', 400);
    expect(invalidPage.html).to.contain('is not available to member clients').and.contain('http is allowed only for loopback hosts');
    expect(invalidPage.html).to.contain('value="Bad"');

    const publicAnswer = expectPage(
      await post(jar, admin.origin, form, [
        ['name', 'Pocket Tutor'],
        ['audience', 'member'],
        ['scopes', 'openid'],
        ['scopes', 'account:read'],
        ['redirect_uris', 'http://127.0.0.1:9999/callback\r\ncom.example.tutor:/cb'],
      ]),
      'admin-application-created',
      201,
    );
    const publicId = /<code class="client-id">([^<]+)<\/code>/.exec(publicAnswer.html)?.[1] ?? '';
    expect(publicId).to.match(/^sg_/);
    expect(publicAnswer.html, publicAnswer.html.slice(publicAnswer.html.indexOf('<main'))).to.contain('has no client secret').and.not.contain('id="client-secret"');

    const confidentialAnswer = expectPage(
      await post(jar, admin.origin, form, [
        ['name', 'Server Sync'],
        ['audience', 'operator'],
        ['confidential', 'on'],
        ['scopes', 'openid'],
        ['scopes', 'school:read'],
        ['redirect_uris', 'https://sync.example/callback'],
      ]),
      'admin-application-created',
      201,
    );
    const confidentialId = /<code class="client-id">([^<]+)<\/code>/.exec(confidentialAnswer.html)?.[1] ?? '';
    const secret = /<code class="secret" id="client-secret">([^<]+)<\/code>/.exec(confidentialAnswer.html)?.[1] ?? '';
    expect(secret).to.match(/^sgs_/);
    const stored = await findClientWithSecret(scratch().db, admin.server.siteA.id, confidentialId);
    expect(stored?.client).to.include({ confidential: true, tokenEndpointAuthMethod: 'client_secret_post', audience: 'operator' });
    expect(stored?.client.redirectUris).to.deep.equal(['https://sync.example/callback']);

    const list = expectPage(await browserRequest(jar, new URL('/admin/developers/oauth-applications', admin.origin)), 'admin-applications');
    expect(list.html).to.contain('Pocket Tutor').and.contain('Server Sync').and.contain(publicId).and.contain(confidentialId);
    expect(list.html).to.not.contain(secret);
    const detail = expectPage(await browserRequest(jar, new URL(`/admin/developers/oauth-applications/${encodeURIComponent(confidentialId)}`, admin.origin)), 'admin-application');
    expect(detail.html).to.not.contain(secret);

    const rotated = expectPage(await post(jar, admin.origin, formFor(detail.html, `/admin/developers/oauth-applications/${confidentialId}/rotate-secret`), []), 'admin-application-secret');
    const newSecret = /<code class="secret" id="client-secret">([^<]+)<\/code>/.exec(rotated.html)?.[1] ?? '';
    expect(newSecret).to.match(/^sgs_/).and.not.equal(secret);

    const deleted = await post(jar, admin.origin, formFor(detail.html, `/admin/developers/oauth-applications/${confidentialId}/delete`), []);
    expect(deleted.kind === 'redirect' && deleted.location.pathname).to.equal('/admin/developers/oauth-applications');
    expect(await findClientWithSecret(scratch().db, admin.server.siteA.id, confidentialId)).to.equal(null);
    const after = expectPage(await browserRequest(jar, new URL('/admin/developers/oauth-applications?deleted=1', admin.origin)), 'admin-applications');
    expect(after.html).to.contain('was deleted and its tokens revoked').and.not.contain('Server Sync');
    expectPage(await browserRequest(jar, new URL(`/admin/developers/oauth-applications/${confidentialId}`, admin.origin)), 'admin-error', 404);
  });

  it('keeps sites apart and answers unknown admin pages with an HTML 404', async () => {
    const jar = await operatorJar();
    // The same browser at site B has no session there.
    expectPage(await browserRequest(jar, new URL('/admin', admin.server.siteB.origin)), 'admin-sign-in');
    const missing = expectPage(await browserRequest(jar, new URL('/admin/nothing-here', admin.origin)), 'admin-error', 404);
    expect(missing.response.headers.get('content-security-policy')).to.contain("default-src 'none'");
    const signOutForm = formFor(expectPage(await browserRequest(jar, new URL('/admin', admin.origin)), 'admin-home').html, '/admin/sign-out');
    const signedOut = await post(jar, admin.origin, signOutForm, []);
    expect(signedOut.kind === 'redirect' && signedOut.location.pathname).to.equal('/admin');
    expectPage(await browserRequest(jar, new URL('/admin', admin.origin)), 'admin-sign-in');
  });

  describe('Developers: service clients, client settings, revoking tokens and members’ connected apps', () => {
    const APPLICATIONS = '/admin/developers/oauth-applications';
    const CONNECTED_APPS = '/admin/developers/connected-apps';
    let jar: CookieJar;

    before(async () => {
      jar = await operatorJar();
      const settings = expectPage(await browserRequest(jar, new URL('/admin/settings', admin.origin)), 'admin-settings');
      const saved = await post(jar, admin.origin, formFor(settings.html, '/admin/settings'), [['mcp_connections_beta', 'on']]);
      expect(saved.kind).to.equal('redirect');
      expect((await getSite(scratch().db, admin.server.siteA.id)).mcpConnectionsEnabled).to.equal(true);
    });

    const applicationPath = (clientId: string) => `${APPLICATIONS}/${encodeURIComponent(clientId)}`;
    const clientIdOn = (html: string) => /<code class="client-id">([^<]+)<\/code>/.exec(html)?.[1] ?? '';
    const secretOn = (html: string) => /<code class="secret" id="client-secret">([^<]+)<\/code>/.exec(html)?.[1] ?? '';
    const clientCount = async () => Number(((await scratch().db('oauth_clients').count({ n: '*' }).first()) as { n: number | string }).n);

    /** Fills in the new-application form with the Service client box checked; answers the page. */
    async function createService(values: Array<[string, string]>): Promise<BrowserAnswer> {
      const form = formFor(expectPage(await browserRequest(jar, new URL(`${APPLICATIONS}/new`, admin.origin)), 'admin-application-new').html, APPLICATIONS);
      return post(jar, admin.origin, form, [['service', 'on'], ...values]);
    }

    async function clientCredentials(clientId: string, secret: string): Promise<string> {
      const answer = await postForm(`${admin.origin}/api/oauth/token`, { grant_type: 'client_credentials', client_id: clientId, client_secret: secret });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body).to.not.have.property('refresh_token');
      return String(answer.body.access_token);
    }

    it('creates a service client from the Service client box: a confidential operator client whatever the other boxes say, its secret shown once', async () => {
      const before = await clientCount();
      // Identity scopes and redirect URIs are not for a service client: the form comes back with each problem.
      const refused = expectPage(
        await createService([
          ['name', 'Nightly SIS sync'],
          ['scopes', 'openid'],
          ['scopes', 'school:read'],
          ['redirect_uris', 'https://sis.example/cb'],
        ]),
        'admin-application-new',
        400,
      );
      expect(refused.html).to.contain('The application was not created').and.contain('Scopes').and.contain('Redirect URIs').and.contain('value="Nightly SIS sync"');
      expect(await clientCount()).to.equal(before);

      const created = expectPage(
        await createService([
          ['name', 'Nightly SIS sync'],
          // The audience radio left at Members and the confidential box unchecked: the service box decides both.
          ['audience', 'member'],
          ['scopes', 'school:read'],
          ['scopes', 'members:read'],
          ['redirect_uris', ''],
        ]),
        'admin-application-created',
        201,
      );
      const clientId = clientIdOn(created.html);
      const secret = secretOn(created.html);
      expect(secret).to.match(/^sgs_/);
      expect(created.html).to.contain('Service client (created here)');
      const stored = await findClientWithSecret(scratch().db, admin.server.siteA.id, clientId);
      expect(stored?.client).to.include({ kind: 'service', audience: 'operator', confidential: true, tokenEndpointAuthMethod: 'client_secret_post' });
      expect(stored?.client.redirectUris).to.deep.equal([]);
      expect(stored?.client.scopes).to.have.members(['school:read', 'members:read']);
      expect(await clientCount()).to.equal(before + 1);
      expect(expectPage(await browserRequest(jar, new URL(applicationPath(clientId), admin.origin)), 'admin-application').html).to.not.contain(secret);

      // It works as itself: client_credentials, then the admin API within its scopes.
      const api = await AdminApi.connect(admin.origin, await clientCredentials(clientId, secret));
      const school = await api.call('getSchool');
      expect(school.status, school.text).to.equal(200);
    });

    it('Revoke all tokens ends every token of the application at once: they answer 401, and a new one works', async () => {
      const created = expectPage(await createService([['name', 'Report job'], ['scopes', 'school:read']]), 'admin-application-created', 201);
      const clientId = clientIdOn(created.html);
      const secret = secretOn(created.html);
      const first = await AdminApi.connect(admin.origin, await clientCredentials(clientId, secret));
      const second = first.withToken(await clientCredentials(clientId, secret));
      expect((await first.call('getSchool')).status).to.equal(200);

      const page = expectPage(await browserRequest(jar, new URL(applicationPath(clientId), admin.origin)), 'admin-application');
      const form = formFor(page.html, `${applicationPath(clientId)}/revoke-tokens`);
      const noCsrf = await post(jar, admin.origin, { ...form, fields: new Map() }, []);
      expectPage(noCsrf, 'admin-error', 403);
      expect((await first.call('getSchool')).status).to.equal(200);

      const revoked = await post(jar, admin.origin, form, []);
      expect(revoked.kind === 'redirect' && revoked.location.pathname + revoked.location.search).to.equal(`${applicationPath(clientId)}?revoked=1`);
      for (const api of [first, second]) {
        const answer = await api.call('getSchool');
        expect(answer.status).to.equal(401);
        expect(answer.problem.code).to.equal('invalid_token');
      }
      expect(expectPage(await browserRequest(jar, new URL(`${applicationPath(clientId)}?revoked=1`, admin.origin)), 'admin-application').html).to.contain('Every token of the application was revoked.');
      const fresh = first.withToken(await clientCredentials(clientId, secret));
      expect((await fresh.call('getSchool')).status).to.equal(200);
    });

    it('saves a client’s authentication and logout settings, and shows each refused value with its problem, storing nothing', async () => {
      const app = await makeClient(scratch().db, admin.server.siteA, { audience: 'member', confidential: true, scopes: ['openid', 'account:read'], name: 'Homework Helper' });
      const path = applicationPath(app.client.clientId);
      const stored = async () => (await findClientWithSecret(scratch().db, admin.server.siteA.id, app.client.clientId))?.client;
      const original = await stored();
      const page = expectPage(await browserRequest(jar, new URL(path, admin.origin)), 'admin-application');
      const form = formFor(page.html, `${path}/settings`);
      expect(form.fields.get('version')).to.equal(String(original?.version));

      // private_key_jwt with a JWK Set that is not JSON, then with a JWK Set address over http: both refused.
      const notJson = expectPage(
        await post(jar, admin.origin, form, [
          ['token_endpoint_auth_method', 'private_key_jwt'],
          ['jwks', '{"keys": [not json'],
          ['jwks_uri', ''],
        ]),
        'admin-application',
        400,
      );
      expect(notJson.html).to.contain('The settings were not saved').and.contain('Public keys: is not valid JSON').and.contain('{&quot;keys&quot;: [not json</textarea>');
      const httpUri = expectPage(
        await post(jar, admin.origin, form, [
          ['token_endpoint_auth_method', 'private_key_jwt'],
          ['jwks', ''],
          ['jwks_uri', 'http://keys.example/jwks.json'],
        ]),
        'admin-application',
        400,
      );
      expect(httpUri.html).to.contain('JWK Set address: must use https').and.contain('value="http://keys.example/jwks.json"');
      const bothKeys = expectPage(
        await post(jar, admin.origin, form, [
          ['token_endpoint_auth_method', 'private_key_jwt'],
          ['jwks', JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }] })],
          ['jwks_uri', 'https://keys.example/jwks.json'],
        ]),
        'admin-application',
        400,
      );
      expect(bothKeys.html).to.contain('give either jwks or jwksUri, not both');
      // Logout addresses: a fragment and plain http to another host are refused.
      const logout = expectPage(
        await post(jar, admin.origin, form, [
          ['token_endpoint_auth_method', 'client_secret_post'],
          ['post_logout_redirect_uris', 'https://helper.example/bye#top'],
          ['backchannel_logout_uri', 'http://helper.example/logout'],
        ]),
        'admin-application',
        400,
      );
      expect(logout.html).to.contain('Post-logout redirect URIs: https://helper.example/bye#top').and.contain('Back-channel logout URI: http is allowed only for loopback hosts');
      expect(await stored()).to.deep.equal(original);

      const saved = await post(jar, admin.origin, form, [
        ['token_endpoint_auth_method', 'client_secret_basic'],
        ['dpop_bound_access_tokens', 'on'],
        ['post_logout_redirect_uris', 'https://helper.example/bye\r\nhttp://127.0.0.1:9999/signed-out'],
        ['backchannel_logout_uri', 'https://helper.example/logout'],
      ]);
      expect(saved.kind === 'redirect' && saved.location.pathname + saved.location.search).to.equal(`${path}?saved=1`);
      expect(await stored()).to.include({ tokenEndpointAuthMethod: 'client_secret_basic', dpopBoundAccessTokens: true, backchannelLogoutUri: 'https://helper.example/logout', version: (original?.version ?? 0) + 1 });
      expect((await stored())?.postLogoutRedirectUris).to.deep.equal(['https://helper.example/bye', 'http://127.0.0.1:9999/signed-out']);
      const after = expectPage(await browserRequest(jar, new URL(`${path}?saved=1`, admin.origin)), 'admin-application');
      expect(after.html).to.contain('The settings were saved.').and.contain('<option value="client_secret_basic" selected>').and.contain('name="dpop_bound_access_tokens" value="on" checked');
      expect(after.html).to.contain('Access tokens must be DPoP-bound').and.contain('<code>https://helper.example/logout</code>');
      // The method is the one the client now uses: the secret in the body is refused, naming client_secret_basic.
      const wrongMethod = await postForm(`${admin.origin}/api/oauth/token`, { grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://127.0.0.1:8765/callback', client_id: app.client.clientId, client_secret: app.secret ?? '' });
      expect(wrongMethod.status).to.equal(401);
      expect(wrongMethod.body.error).to.equal('invalid_client');
      expect(String(wrongMethod.body.error_description)).to.contain('client_secret_basic');

      // The first form again is based on an old version: 409 with the current settings, nothing overwritten.
      const stale = expectPage(await post(jar, admin.origin, form, [['token_endpoint_auth_method', 'client_secret_post']]), 'admin-application', 409);
      expect(stale.html).to.contain('The settings were not saved');
      expect(await stored()).to.include({ tokenEndpointAuthMethod: 'client_secret_basic', dpopBoundAccessTokens: true });
    });

    describe('Members’ connected apps', () => {
      let member: User;
      let other: User;
      let studyBuddy: TestClient;
      let coursePal: TestClient;

      before(async () => {
        member = await makeUser(scratch().db, admin.server.siteA, ['student'], 'Mina Member');
        other = await makeUser(scratch().db, admin.server.siteA, ['student'], 'Otto Other');
        studyBuddy = await makeClient(scratch().db, admin.server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'account:read'], name: 'Study Buddy' });
        coursePal = await makeClient(scratch().db, admin.server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'email', 'account:read'], name: 'Course Pal' });
        await scratch().db('oauth_clients').where({ id: coursePal.client.ref }).update({ backchannel_logout_uri: 'https://pal.example/logout' });
      });

      /** A live grant (one token pair) of `app` for `user` at `site`; answers its id and access token. */
      async function approve(site: Site, app: TestClient, user: User, scopes = ['openid', 'account:read'] as const): Promise<{ grantId: string; accessToken: string }> {
        const { pair, accessToken } = await insertPair(scratch().db, { grantId: newGrantId(), siteId: site.id, clientRef: app.client.ref, userId: user.id, scopes, resource: site.origin, schoolId: site.id, authTime: new Date() });
        return { grantId: pair.grantId, accessToken };
      }

      async function livePairs(grantId: string): Promise<number> {
        const rows: Array<{ id: number }> = await scratch().db('token_pairs').where({ grant_id: grantId }).whereNull('revoked_at').select('id');
        return rows.length;
      }

      const userinfo = async (token: string) => (await fetch(`${admin.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status;
      const grantIdsOn = (html: string) => [...html.matchAll(/<tr data-grant="([^"]+)"/g)].map((match) => match[1]);

      it('looks a member up by email from the navigation and lists every application holding a live grant, with the application page’s columns', async () => {
        const buddy = await approve(admin.server.siteA, studyBuddy, member);
        const pal = await approve(admin.server.siteA, coursePal, member);
        const othersGrant = await approve(admin.server.siteA, studyBuddy, other);
        const home = expectPage(await browserRequest(jar, new URL('/admin', admin.origin)), 'admin-home');
        expect(home.html).to.contain(`<a href="${CONNECTED_APPS}">Members' connected apps</a>`);
        const lookup = expectPage(await browserRequest(jar, new URL(CONNECTED_APPS, admin.origin)), 'admin-member-lookup');
        const form = parseForms(lookup.html).find((candidate) => candidate.action === CONNECTED_APPS);
        expect(form?.method.toLowerCase()).to.equal('get');

        // Email addresses match whatever their case and surrounding spaces.
        const found = await browserRequest(jar, new URL(`${CONNECTED_APPS}?${new URLSearchParams({ email: `  ${member.email.toUpperCase()} ` })}`, admin.origin));
        expect(found.kind === 'redirect' && found.location.pathname).to.equal(`${CONNECTED_APPS}/${member.id}`);
        const unknown = expectPage(await browserRequest(jar, new URL(`${CONNECTED_APPS}?email=nobody%40example.com`, admin.origin)), 'admin-member-lookup', 404);
        expect(unknown.html).to.contain('No member of').and.contain('has the email nobody@example.com').and.contain('value="nobody@example.com"');
        expectPage(await browserRequest(jar, new URL(`${CONNECTED_APPS}?email=not-an-address`, admin.origin)), 'admin-member-lookup', 404);
        expectPage(await browserRequest(jar, new URL(`${CONNECTED_APPS}?email=`, admin.origin)), 'admin-member-lookup', 400);

        const page = expectPage(await browserRequest(jar, new URL(`${CONNECTED_APPS}/${member.id}`, admin.origin)), 'admin-member-grants');
        expect(grantIdsOn(page.html)).to.have.members([buddy.grantId, pal.grantId]);
        expect(page.html).to.contain(`<h1>Mina Member: connected apps</h1>`).and.contain(member.email);
        expect(page.html).to.contain('<th>Application</th><th>Access</th><th>Approved</th><th>Last used</th>');
        expect(page.html).to.contain(`href="${applicationPath(studyBuddy.client.clientId)}">Study Buddy</a>`).and.contain('Course Pal').and.contain('Created by the school');
        expect(page.html).to.contain('Not used yet').and.contain('<code>account:read</code>').and.not.contain(othersGrant.grantId);

        // Each row of an application's Connected members page links to that member's page.
        const grants = expectPage(await browserRequest(jar, new URL(`${applicationPath(studyBuddy.client.clientId)}/grants`, admin.origin)), 'admin-application-grants');
        expect(grants.html).to.contain(`<a href="${CONNECTED_APPS}/${member.id}">Mina Member (${member.email})</a>`).and.contain(`<a href="${CONNECTED_APPS}/${other.id}">`);
      });

      it('Revoke ends that grant only (every token, and the back-channel logout is queued); without the CSRF token, or for another member’s grant, nothing changes', async () => {
        const buddy = await approve(admin.server.siteA, studyBuddy, member);
        const pal = await approve(admin.server.siteA, coursePal, member);
        const othersGrant = await approve(admin.server.siteA, coursePal, other);
        const path = `${CONNECTED_APPS}/${member.id}`;
        const page = expectPage(await browserRequest(jar, new URL(path, admin.origin)), 'admin-member-grants');
        const action = `${path}/grants/${encodeURIComponent(pal.grantId)}/revoke`;
        const form = formFor(page.html, action);

        expectPage(await post(jar, admin.origin, { ...form, fields: new Map() }, []), 'admin-error', 403);
        expectPage(await post(jar, admin.origin, form, [['csrf_token', 'forged']]), 'admin-error', 403);
        expect(await livePairs(pal.grantId)).to.equal(1);
        // Another member's grant through this member's page: 404, and it stays live.
        const foreign = await post(jar, admin.origin, { ...form, action: `${path}/grants/${encodeURIComponent(othersGrant.grantId)}/revoke` }, []);
        expectPage(foreign, 'admin-error', 404);
        expect(await livePairs(othersGrant.grantId)).to.equal(1);

        const notices = async () => Number(((await scratch().db('logout_deliveries').where({ client_ref: coursePal.client.ref }).count({ n: '*' }).first()) as { n: number | string }).n);
        const noticesBefore = await notices();
        expect(await userinfo(pal.accessToken)).to.equal(200);
        const revoked = await post(jar, admin.origin, form, []);
        expect(revoked.kind === 'redirect' && revoked.location.pathname + revoked.location.search).to.equal(`${path}?revoked=1`);
        expect(await livePairs(pal.grantId)).to.equal(0);
        expect(await userinfo(pal.accessToken)).to.equal(401);
        expect(await notices()).to.equal(noticesBefore + 1);
        expect(await livePairs(buddy.grantId)).to.equal(1);
        expect(await livePairs(othersGrant.grantId)).to.equal(1);
        const after = expectPage(await browserRequest(jar, new URL(`${path}?revoked=1`, admin.origin)), 'admin-member-grants');
        expect(after.html).to.contain('was revoked');
        expect(grantIdsOn(after.html)).to.include(buddy.grantId).and.not.include(pal.grantId);
        // The same form again: the grant is gone, so 404.
        expectPage(await post(jar, admin.origin, form, []), 'admin-error', 404);
      });

      it('answers 404 for a member of another site only, an unknown id, and leaves that member’s grants alone', async () => {
        const elsewhere = await makeUser(scratch().db, admin.server.siteB, ['student'], 'Bea Elsewhere');
        const betaApp = await makeClient(scratch().db, admin.server.siteB, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'], name: 'Beta Helper' });
        const grant = await approve(admin.server.siteB, betaApp, elsewhere);
        expectPage(await browserRequest(jar, new URL(`${CONNECTED_APPS}/${elsewhere.id}`, admin.origin)), 'admin-error', 404);
        expectPage(await browserRequest(jar, new URL(`${CONNECTED_APPS}?${new URLSearchParams({ email: elsewhere.email })}`, admin.origin)), 'admin-member-lookup', 404);
        const memberPage = expectPage(await browserRequest(jar, new URL(`${CONNECTED_APPS}/${member.id}`, admin.origin)), 'admin-member-grants');
        const csrf = [...formFor(memberPage.html, '/admin/sign-out').fields].filter(([name]) => name === 'csrf_token');
        const revoke = await browserRequest(jar, new URL(`${CONNECTED_APPS}/${elsewhere.id}/grants/${encodeURIComponent(grant.grantId)}/revoke`, admin.origin), { method: 'POST', form: csrf });
        expectPage(revoke, 'admin-error', 404);
        expect(await livePairs(grant.grantId)).to.equal(1);
        for (const id of ['0', 'abc', '99999999999999999999']) expectPage(await browserRequest(jar, new URL(`${CONNECTED_APPS}/${id}`, admin.origin)), 'admin-error', 404);
      });
    });
  });
});
