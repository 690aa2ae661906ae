import { expect } from 'chai';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { grantRole } from '../src/accounts/roles.js';
import { createUser } from '../src/accounts/users.js';
import { createClient, type OAuthClient } from '../src/clients/clients.js';
import { buildAuthorizationUrl, createPkcePair } from './support/authorize-flow.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { launchChromium, startCallbackServer, type CallbackServer } from './support/browser.js';
import { startTestServer, type TestServer } from './support/server.js';

const PASSWORD = 'browser-test-password-1';


// One database kind is enough for the browser: SQLite unless the run is narrowed to MySQL only.
const kind = TEST_DATABASE_KINDS.includes('sqlite') ? 'sqlite' : (TEST_DATABASE_KINDS[0] ?? 'sqlite');

describe(`browser: sign in and consent through the real pages in Chromium [${kind}]`, function () {
  this.timeout(60000);
  let scratch: ScratchDatabase | undefined;
  let server: TestServer | undefined;
  let callback: CallbackServer | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let client: OAuthClient;
  const email = 'bea.browser@example.com';
  const problems: string[] = [];

  before(async function () {
    scratch = await createScratchDatabase(kind);
    server = await startTestServer(scratch);
    callback = await startCallbackServer();
    const user = await createUser(scratch.db, { email, name: 'Bea Browser', password: PASSWORD });
    await grantRole(scratch.db, server.siteA.id, user.id, 'student');
    client = (
      await createClient(scratch.db, server.siteA.id, { name: 'Browser Buddy', audience: 'member', confidential: false, scopes: ['openid', 'profile', 'account:read'], redirectUris: [callback.url] })
    ).client;
    browser = await launchChromium();
    // No JavaScript at all: the pages must work as plain HTML forms.
    context = await browser.newContext({ javaScriptEnabled: false });
  });

  after(async () => {
    await browser?.close();
    await callback?.close();
    await server?.stop();
    await scratch?.drop();
  });

  function watch(page: Page): void {
    // A CSP that blocked the form post or the redirect after it shows up as a console error.
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  }

  function authorizeUrl(state: string): string {
    if (!server || !callback) throw new Error('not started');
    return buildAuthorizationUrl({
      origin: server.siteA.origin,
      clientId: client.clientId,
      redirectUri: callback.url,
      scope: 'openid profile account:read',
      email,
      password: PASSWORD,
      state,
      nonce: `nonce-${state}`,
      codeChallenge: createPkcePair().challenge,
    }).href;
  }

  it('signs in, approves, and lands on the redirect_uri with code, state and iss', async () => {
    if (!server || !callback) throw new Error('not started');
    const page = await context.newPage();
    watch(page);
    await page.goto(authorizeUrl('first'));
    expect(await page.locator('h1').innerText()).to.contain(`Sign in to ${server.siteA.name}`);
    await page.fill('#email', email);
    await page.fill('#password', PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    const consentText = await page.locator('main').innerText();
    expect(consentText).to.contain('Browser Buddy').and.contain('Member app').and.contain('See your name and profile picture');
    await Promise.all([page.waitForURL(`${callback.url}?**`), page.getByRole('button', { name: 'Approve' }).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('code')).to.match(/^sgc_/);
    expect(landed.searchParams.get('state')).to.equal('first');
    expect(landed.searchParams.get('iss')).to.equal(server.siteA.origin);
    expect(callback.received.map((url) => url.searchParams.get('code'))).to.include(landed.searchParams.get('code'));
    expect(problems, 'console errors (CSP violations?)').to.deep.equal([]);
    await page.close();
  });

  it('shows the consent page again with the live session, and Deny returns access_denied', async () => {
    if (!server || !callback) throw new Error('not started');
    const page = await context.newPage();
    watch(page);
    await page.goto(authorizeUrl('second'));
    await page.getByRole('button', { name: 'Deny' }).waitFor();
    expect(await page.locator('main').innerText()).to.contain('Bea Browser');
    await Promise.all([page.waitForURL(`${callback.url}?**`), page.getByRole('button', { name: 'Deny' }).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('error')).to.equal('access_denied');
    expect(landed.searchParams.get('state')).to.equal('second');
    expect(landed.searchParams.get('iss')).to.equal(server.siteA.origin);
    expect(landed.searchParams.get('code')).to.equal(null);
    expect(problems, 'console errors (CSP violations?)').to.deep.equal([]);
    await page.close();
  });

  it('keeps the session cookie HttpOnly and SameSite=Lax', async () => {
    if (!server) throw new Error('not started');
    const cookies = await context.cookies(server.siteA.origin);
    const session = cookies.find((cookie) => cookie.name === 'sg_session');
    expect(session, 'sg_session cookie').to.not.equal(undefined);
    expect(session?.httpOnly).to.equal(true);
    expect(session?.sameSite).to.equal('Lax');
    expect(session?.path).to.equal('/');
  });
});
