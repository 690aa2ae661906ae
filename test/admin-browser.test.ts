import { expect } from 'chai';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { grantRole } from '../src/accounts/roles.js';
import { createUser } from '../src/accounts/users.js';
import { buildAuthorizationUrl, createPkcePair } from './support/authorize-flow.js';
import { createScratchDatabase, type ScratchDatabase } from './support/databases.js';
import { postForm } from './support/oauth-fixtures.js';
import { launchChromium, startCallbackServer, type CallbackServer } from './support/browser.js';
import { startTestServer, type TestServer } from './support/server.js';

const PASSWORD = 'admin-browser-password-1';


// The browser needs one database: SQLite (the API and page tests cover MySQL).
describe('browser: the admin area in Chromium: beta on, create a public and a confidential application, authorize with each [sqlite]', function () {
  this.timeout(90000);
  let scratch: ScratchDatabase | undefined;
  let server: TestServer | undefined;
  let callback: CallbackServer | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  const email = 'otto.operator@example.com';
  const problems: string[] = [];
  const created: Record<'public' | 'confidential', { clientId: string; secret: string | null }> = {
    public: { clientId: '', secret: null },
    confidential: { clientId: '', secret: null },
  };

  before(async function () {
    scratch = await createScratchDatabase('sqlite');
    server = await startTestServer(scratch);
    callback = await startCallbackServer();
    const user = await createUser(scratch.db, { email, name: 'Otto Operator', password: PASSWORD });
    await grantRole(scratch.db, server.siteA.id, user.id, 'operator');
    browser = await launchChromium();
    // No JavaScript at all: the admin area must work as plain HTML forms.
    context = await browser.newContext({ javaScriptEnabled: false });
    page = await context.newPage();
    // A CSP that blocked a form post or a redirect shows up as a console error.
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  });

  after(async () => {
    await browser?.close();
    await callback?.close();
    await server?.stop();
    await scratch?.drop();
  });

  function started(): { server: TestServer; callback: NonNullable<typeof callback> } {
    if (!server || !callback) throw new Error('not started');
    return { server, callback };
  }

  it('signs in at /admin with the operator account', async () => {
    const { server } = started();
    await page.goto(`${server.siteA.origin}/admin`);
    expect(await page.locator('h1').innerText()).to.contain(`Sign in to the admin area of ${server.siteA.name}`);
    await page.fill('#email', email);
    await page.fill('#password', PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.siteA.origin}/admin`);
    expect(await page.locator('main').getAttribute('data-page')).to.equal('admin-home');
    expect(await page.locator('main').innerText()).to.contain('Signed in as Otto Operator');
    expect(await page.getByRole('link', { name: 'Developers › OAuth applications' }).count()).to.equal(0);
  });

  it('turns the MCP connections beta on in Settings', async () => {
    await page.getByRole('link', { name: 'Settings' }).first().click();
    const beta = page.getByLabel('Turn on the MCP connections beta');
    expect(await beta.isChecked()).to.equal(false);
    await beta.check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('The settings were saved.').waitFor();
    expect(await page.getByLabel('Turn on the MCP connections beta').isChecked()).to.equal(true);
    expect(await page.getByRole('link', { name: 'Developers › OAuth applications' }).count()).to.equal(1);
  });

  async function createApplication(name: string, confidential: boolean): Promise<{ clientId: string; secret: string | null }> {
    const { callback } = started();
    await page.getByRole('link', { name: 'Developers › OAuth applications' }).click();
    await page.getByRole('link', { name: 'New OAuth application' }).click();
    await page.fill('#name', name);
    await page.locator('input[name="audience"][value="member"]').check();
    if (confidential) await page.getByLabel('Confidential application').check();
    else expect(await page.getByLabel('Confidential application').isChecked()).to.equal(false);
    for (const scope of ['openid', 'profile', 'account:read']) await page.locator(`input[name="scopes"][value="${scope}"]`).check();
    await page.fill('#redirect_uris', callback.url);
    await page.getByRole('button', { name: 'Create application' }).click();
    await page.getByRole('heading', { name: `${name} was created` }).waitFor();
    const clientId = await page.locator('code.client-id').innerText();
    const secretCount = await page.locator('#client-secret').count();
    return { clientId, secret: secretCount === 0 ? null : await page.locator('#client-secret').innerText() };
  }

  it('creates a public application (confidential box unchecked): a client_id and no secret', async () => {
    created.public = await createApplication('Pocket Tutor', false);
    expect(created.public.clientId).to.match(/^sg_/);
    expect(created.public.secret).to.equal(null);
    expect(await page.locator('main').innerText()).to.contain('Public (PKCE, no secret)');
  });

  it('creates a confidential application (box checked): a client_id and its secret, shown once', async () => {
    created.confidential = await createApplication('Server Sync', true);
    expect(created.confidential.clientId).to.match(/^sg_/);
    expect(created.confidential.secret).to.match(/^sgs_/);
    expect(await page.locator('main').innerText()).to.contain('client_secret_post').and.contain('shown only this once');
    await page.getByRole('link', { name: 'Back to OAuth applications' }).click();
    const list = await page.locator('main').innerText();
    expect(list).to.contain('Pocket Tutor').and.contain('Server Sync');
    expect(list).to.not.contain(created.confidential.secret ?? 'no secret');
  });

  async function authorizeAndExchange(kind: 'public' | 'confidential'): Promise<void> {
    const { server, callback } = started();
    const { clientId, secret } = created[kind];
    const { verifier, challenge } = createPkcePair();
    const url = buildAuthorizationUrl({
      origin: server.siteA.origin,
      clientId,
      redirectUri: callback.url,
      scope: 'openid profile account:read',
      email,
      password: PASSWORD,
      state: `state-${kind}`,
      nonce: `nonce-${kind}`,
      codeChallenge: challenge,
    });
    await page.goto(url.href);
    // The admin sign-in is the site's one browser session: the consent page comes straight away.
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    expect(await page.locator('main').innerText()).to.contain(kind === 'public' ? 'Pocket Tutor' : 'Server Sync');
    await Promise.all([page.waitForURL(`${callback.url}?**`), page.getByRole('button', { name: 'Approve' }).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).to.equal(`state-${kind}`);
    expect(landed.searchParams.get('iss')).to.equal(server.siteA.origin);
    const code = landed.searchParams.get('code') ?? '';
    expect(code).to.match(/^sgc_/);

    const token = await postForm(`${server.siteA.origin}/api/oauth/token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: callback.url,
      client_id: clientId,
      code_verifier: verifier,
      resource: server.siteA.origin,
      ...(secret === null ? {} : { client_secret: secret }),
    });
    expect(token.status, JSON.stringify(token.body)).to.equal(200);
    expect(token.body).to.include({ token_type: 'Bearer', scope: 'openid profile account:read' });
    expect(token.body.access_token).to.match(/^sga_/);
    expect(token.body.id_token).to.be.a('string');
    const userinfo = await fetch(`${server.siteA.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${String(token.body.access_token)}` } });
    expect(userinfo.status).to.equal(200);
    expect(((await userinfo.json()) as { name?: string }).name).to.equal('Otto Operator');
  }

  it('completes an authorization with the public application and exchanges the code with PKCE only', async () => {
    await authorizeAndExchange('public');
  });

  it('completes an authorization with the confidential application and exchanges the code with its secret', async () => {
    const { server, callback } = started();
    await authorizeAndExchange('confidential');
    // Without the secret, the token endpoint refuses the confidential client.
    const refused = await postForm(`${server.siteA.origin}/api/oauth/token`, {
      grant_type: 'authorization_code',
      code: 'sgc_whatever',
      redirect_uri: callback.url,
      client_id: created.confidential.clientId,
      code_verifier: createPkcePair().verifier,
      resource: server.siteA.origin,
    });
    expect(refused.status).to.equal(401);
    expect(refused.body.error).to.equal('invalid_client');
    expect(problems, 'console errors (CSP violations?)').to.deep.equal([]);
  });
});
