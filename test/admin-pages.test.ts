import { expect } from 'chai';
import { findClientWithSecret } from '../src/clients/clients.js';
import { getSite } from '../src/sites/sites.js';
import { browserRequest, CookieJar, parseForms, type BrowserAnswer, type HtmlForm } from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser, PASSWORD } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

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
  let server: TestServer;
  let origin: string;

  before(async () => {
    server = await startTestServer(scratch());
    origin = server.siteA.origin;
  });
  after(() => server.stop());

  async function signIn(email: string, jar = new CookieJar(), returnTo = '/admin'): Promise<{ jar: CookieJar; answer: BrowserAnswer }> {
    const page = expectPage(await browserRequest(jar, new URL(returnTo, origin)), 'admin-sign-in');
    const answer = await post(jar, origin, formFor(page.html, '/admin/sign-in'), [
      ['email', email],
      ['password', PASSWORD],
    ]);
    return { jar, answer };
  }

  async function operatorJar(): Promise<CookieJar> {
    const operator = await makeUser(scratch().db, server.siteA, ['operator'], 'Opal Operator');
    const { jar, answer } = await signIn(operator.email);
    expect(answer.kind).to.equal('redirect');
    return jar;
  }

  it('shows the sign-in page with the authorize pages’ security headers, and no script', async () => {
    const answer = expectPage(await browserRequest(new CookieJar(), new URL('/admin', origin)), 'admin-sign-in');
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
    const student = await makeUser(scratch().db, server.siteA, ['student'], 'Sam Student');
    const refused = await signIn(student.email);
    expect(expectPage(refused.answer, 'admin-sign-in', 403).html).to.contain('is not an owner, operator or staff member');

    const operator = await makeUser(scratch().db, server.siteA, ['staff'], 'Stella Staff');
    const jar = new CookieJar();
    const page = expectPage(await browserRequest(jar, new URL('/admin/settings', origin)), 'admin-sign-in');
    const form = formFor(page.html, '/admin/sign-in');
    expect(form.fields.get('return_to')).to.equal('/admin/settings');
    const wrong = await post(jar, origin, form, [
      ['email', operator.email],
      ['password', 'not-the-password'],
    ]);
    expect(expectPage(wrong, 'admin-sign-in', 400).html).to.contain('The email or password is not correct.');
    const forged = await post(new CookieJar(), origin, form, [
      ['email', operator.email],
      ['password', PASSWORD],
    ]);
    expectPage(forged, 'admin-error', 403);
    const open = await post(jar, origin, form, [
      ['email', operator.email],
      ['password', PASSWORD],
      ['return_to', 'https://evil.example/admin'],
    ]);
    expect(open.kind === 'redirect' && open.location.href).to.equal(`${origin}/admin`);
    const ok = await signIn(operator.email, new CookieJar(), '/admin/settings');
    expect(ok.answer.kind === 'redirect' && ok.answer.status).to.equal(303);
    expect(ok.answer.kind === 'redirect' && ok.answer.location.href).to.equal(`${origin}/admin/settings`);
    expectPage(await browserRequest(ok.jar, new URL('/admin/settings', origin)), 'admin-settings');
  });

  it('rate limits sign-in attempts per account with the shared limits (429)', async () => {
    const operator = await makeUser(scratch().db, server.siteA, ['operator'], 'Limited Lou');
    const jar = new CookieJar();
    const form = formFor(expectPage(await browserRequest(jar, new URL('/admin', origin)), 'admin-sign-in').html, '/admin/sign-in');
    let last: BrowserAnswer | undefined;
    for (let attempt = 0; attempt < 6; attempt += 1) {
      last = await post(jar, origin, form, [
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
    const home = expectPage(await browserRequest(jar, new URL('/admin', origin)), 'admin-home');
    expect(home.html).to.not.contain('href="/admin/developers/oauth-applications"');
    expectPage(await browserRequest(jar, new URL('/admin/developers/oauth-applications', origin)), 'admin-error', 404);

    const settings = expectPage(await browserRequest(jar, new URL('/admin/settings', origin)), 'admin-settings');
    const form = formFor(settings.html, '/admin/settings');
    const noCsrf = await post(jar, origin, { ...form, fields: new Map([...form.fields].filter(([name]) => name !== 'csrf_token')) }, [['mcp_connections_beta', 'on']]);
    expectPage(noCsrf, 'admin-error', 403);
    expect((await getSite(scratch().db, server.siteA.id)).mcpConnectionsEnabled).to.equal(false);

    const saved = await post(jar, origin, form, [['mcp_connections_beta', 'on']]);
    expect(saved.kind === 'redirect' && saved.location.pathname).to.equal('/admin/settings');
    expect((await getSite(scratch().db, server.siteA.id)).mcpConnectionsEnabled).to.equal(true);
    // The same form again is based on an old version: the operator sees the current settings instead of overwriting.
    const stale = await post(jar, origin, form, []);
    expect(expectPage(stale, 'admin-settings', 409).html).to.contain('Someone else changed the settings');
    expect((await getSite(scratch().db, server.siteA.id)).mcpConnectionsEnabled).to.equal(true);
    expect(expectPage(await browserRequest(jar, new URL('/admin', origin)), 'admin-home').html).to.contain('href="/admin/developers/oauth-applications"');
  });

  it('creates public and confidential applications, shows the client_id and the secret once, lists and deletes them', async () => {
    const jar = await operatorJar();
    const newPage = expectPage(await browserRequest(jar, new URL('/admin/developers/oauth-applications/new', origin)), 'admin-application-new');
    const form = formFor(newPage.html, '/admin/developers/oauth-applications');

    const invalid = await post(jar, origin, form, [
      ['name', 'Bad'],
      ['audience', 'member'],
      ['scopes', 'school:read'],
      ['redirect_uris', 'http://not-loopback.example/cb'],
    ]);
    const invalidPage = expectPage(invalid, 'admin-application-new', 400);
    expect(invalidPage.html).to.contain('is not available to member clients').and.contain('http is allowed only for loopback hosts');
    expect(invalidPage.html).to.contain('value="Bad"');

    const publicAnswer = expectPage(
      await post(jar, origin, form, [
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
      await post(jar, origin, form, [
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
    const stored = await findClientWithSecret(scratch().db, server.siteA.id, confidentialId);
    expect(stored?.client).to.include({ confidential: true, tokenEndpointAuthMethod: 'client_secret_post', audience: 'operator' });
    expect(stored?.client.redirectUris).to.deep.equal(['https://sync.example/callback']);

    const list = expectPage(await browserRequest(jar, new URL('/admin/developers/oauth-applications', origin)), 'admin-applications');
    expect(list.html).to.contain('Pocket Tutor').and.contain('Server Sync').and.contain(publicId).and.contain(confidentialId);
    expect(list.html).to.not.contain(secret);
    const detail = expectPage(await browserRequest(jar, new URL(`/admin/developers/oauth-applications/${encodeURIComponent(confidentialId)}`, origin)), 'admin-application');
    expect(detail.html).to.not.contain(secret);

    const rotated = expectPage(await post(jar, origin, formFor(detail.html, `/admin/developers/oauth-applications/${confidentialId}/rotate-secret`), []), 'admin-application-secret');
    const newSecret = /<code class="secret" id="client-secret">([^<]+)<\/code>/.exec(rotated.html)?.[1] ?? '';
    expect(newSecret).to.match(/^sgs_/).and.not.equal(secret);

    const deleted = await post(jar, origin, formFor(detail.html, `/admin/developers/oauth-applications/${confidentialId}/delete`), []);
    expect(deleted.kind === 'redirect' && deleted.location.pathname).to.equal('/admin/developers/oauth-applications');
    expect(await findClientWithSecret(scratch().db, server.siteA.id, confidentialId)).to.equal(null);
    const after = expectPage(await browserRequest(jar, new URL('/admin/developers/oauth-applications?deleted=1', origin)), 'admin-applications');
    expect(after.html).to.contain('was deleted and its tokens revoked').and.not.contain('Server Sync');
    expectPage(await browserRequest(jar, new URL(`/admin/developers/oauth-applications/${confidentialId}`, origin)), 'admin-error', 404);
  });

  it('keeps sites apart and answers unknown admin pages with an HTML 404', async () => {
    const jar = await operatorJar();
    // The same browser at site B has no session there.
    expectPage(await browserRequest(jar, new URL('/admin', server.siteB.origin)), 'admin-sign-in');
    const missing = expectPage(await browserRequest(jar, new URL('/admin/nothing-here', origin)), 'admin-error', 404);
    expect(missing.response.headers.get('content-security-policy')).to.contain("default-src 'none'");
    const signOutForm = formFor(expectPage(await browserRequest(jar, new URL('/admin', origin)), 'admin-home').html, '/admin/sign-out');
    const signedOut = await post(jar, origin, signOutForm, []);
    expect(signedOut.kind === 'redirect' && signedOut.location.pathname).to.equal('/admin');
    expectPage(await browserRequest(jar, new URL('/admin', origin)), 'admin-sign-in');
  });
});
