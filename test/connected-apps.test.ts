/**
 * Connected apps (docs/connected-apps.md): a member sees, at the site, every application holding a live grant for
 * them and disconnects one (the whole token family ends and the client's back-channel logout is queued); operators see
 * and revoke the same through the admin API and the admin area; last_used_at moves at most once an hour per pair.
 */
import { expect } from 'chai';
import { grantRole } from '../src/accounts/roles.js';
import type { User } from '../src/accounts/users.js';
import { SCOPE_WORDING } from '../src/oauth/authorize/scope-wording.js';
import { LAST_USED_RESOLUTION_MS } from '../src/oauth/tokens/last-used.js';
import { tokenKey } from '../src/oauth/tokens/token-keys.js';
import { AdminApi, issueToken, setBeta, type Schemas } from './support/admin.js';
import { authorizeViaPages, browserRequest, CookieJar, createPkcePair, decodeEntities, findForm, submitForm, type BrowserAnswer } from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { makeClient, makeUser, PASSWORD, postForm, REDIRECT_URI, type TestClient } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

type ConnectedAppList = Schemas['ConnectedAppList'];

interface Tokens {
  access_token: string;
  refresh_token: string;
}

function pageOf(answer: BrowserAnswer): Extract<BrowserAnswer, { kind: 'page' }> {
  if (answer.kind !== 'page') throw new Error(`expected a page, got a ${answer.status} redirect to ${answer.location.href}`);
  return answer;
}

function dataPage(html: string): string | null {
  return /<main\b[^>]*\bdata-page="([a-z-]+)"/.exec(html)?.[1] ?? null;
}

/** The grant ids the list shows, in order. */
function grantIdsOn(html: string): string[] {
  return [...html.matchAll(/<li data-grant="([^"]+)"/g)].map((match) => decodeEntities(match[1] ?? ''));
}

describeEachDatabase('connected apps: the member page, the admin API and last use', (scratch) => {
  let server: TestServer;
  let origin: string;
  let member: User;
  let stranger: User;
  let studyBuddy: TestClient;
  let coursePal: TestClient;
  let operatorApi: AdminApi;
  let operatorUser: User;
  const db = () => scratch().db;

  before(async () => {
    server = await startTestServer(scratch());
    origin = server.siteA.origin;
    member = await makeUser(db(), server.siteA, ['student'], 'Mina Member');
    stranger = await makeUser(db(), server.siteA, ['student'], 'Sam Stranger');
    studyBuddy = await makeClient(db(), server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'account:read'], name: 'Study Buddy' });
    coursePal = await makeClient(db(), server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'email', 'account:read', 'account:write'], name: 'Course Pal <b>' });
    // Course Pal takes back-channel logout notices (OIDC Back-Channel Logout 1.0 2.2).
    await db()('oauth_clients').where({ id: coursePal.client.ref }).update({ backchannel_logout_uri: 'https://pal.example/logout' });
    const operator = await issueToken(db(), server.siteA, { scopes: ['members:read', 'members:write', 'school:read', 'school:write'] });
    operatorApi = await AdminApi.connect(origin, operator.token);
    operatorUser = operator.user;
    await setBeta(operatorApi, true);
  });
  after(() => server.stop());

  /** The real authorization-code flow through the pages, then the token endpoint. */
  async function authorize(user: User, app: TestClient, scope: string): Promise<Tokens> {
    const { verifier, challenge } = createPkcePair();
    const { code } = await authorizeViaPages({ origin, clientId: app.client.clientId, redirectUri: REDIRECT_URI, scope, email: user.email, password: PASSWORD, codeChallenge: challenge });
    const answer = await postForm(`${origin}/api/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: app.client.clientId, resource: origin });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body as unknown as Tokens;
  }

  const userinfo = (token: string) => fetch(`${origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
  const refresh = (app: TestClient, token: string) => postForm(`${origin}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: token, client_id: app.client.clientId });

  /** Opens /connected-apps in a fresh browser and signs in there; answers the jar and the list page. */
  async function signInToList(user: User): Promise<{ jar: CookieJar; page: Extract<BrowserAnswer, { kind: 'page' }> }> {
    const jar = new CookieJar();
    const listUrl = new URL('/connected-apps', origin);
    const signIn = pageOf(await browserRequest(jar, listUrl));
    expect(dataPage(signIn.html)).to.equal('connected-apps-sign-in');
    const form = findForm(signIn.html, '/connected-apps/sign-in');
    if (!form) throw new Error('no sign-in form');
    const signedIn = await submitForm(jar, listUrl, form, { email: user.email, password: PASSWORD });
    expect(signedIn.kind).to.equal('redirect');
    if (signedIn.kind !== 'redirect') throw new Error('not redirected');
    expect(signedIn.location.pathname).to.equal('/connected-apps');
    const page = pageOf(await browserRequest(jar, signedIn.location));
    expect(page.status).to.equal(200);
    expect(dataPage(page.html)).to.equal('connected-apps');
    return { jar, page };
  }

  async function livePairs(grantId: string): Promise<number> {
    const rows: Array<{ id: number }> = await db()('token_pairs').where({ grant_id: grantId }).whereNull('revoked_at').select('id');
    return rows.length;
  }

  async function grantOf(accessToken: string): Promise<string> {
    const row: { grant_id: string } | undefined = await db()('token_pairs').where({ access_token_hash: tokenKey(accessToken) }).first('grant_id');
    if (!row) throw new Error('no pair for the token');
    return row.grant_id;
  }

  describe('the member page', () => {
    let buddyTokens: Tokens;
    let palTokens: Tokens;

    before(async () => {
      buddyTokens = await authorize(member, studyBuddy, 'openid profile account:read');
      palTokens = await authorize(member, coursePal, 'openid email account:write');
      expect((await userinfo(buddyTokens.access_token)).status).to.equal(200);
    });

    it('shows the sign-in page first, then both applications with where they came from, the scopes in the consent page’s words, approval and last use', async () => {
      const { page } = await signInToList(member);
      const html = page.html;
      expect(grantIdsOn(html)).to.have.length(2);
      expect(html).to.include('Study Buddy');
      // HTML-escaped name.
      expect(html).to.include('Course Pal &lt;b&gt;').and.not.include('Course Pal <b>');
      expect(decodeEntities(html)).to.include(SCOPE_WORDING['account:read']);
      expect(decodeEntities(html)).to.include(SCOPE_WORDING['account:write']);
      expect(html).to.include('Created by the school');
      expect(html).to.match(/Approved:<\/dt><dd>\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:00 UTC/);
      // Study Buddy's token was presented (userinfo); Course Pal's not yet.
      expect(html).to.match(/Last used:<\/dt><dd>\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:00 UTC/);
      expect(html).to.include('Not used yet');
      expect(page.response.headers.get('cache-control')).to.equal('no-store');
    });

    it('refuses a disconnect without the CSRF token (403) and changes nothing', async () => {
      const { jar } = await signInToList(member);
      const grantId = await grantOf(palTokens.access_token);
      const refused = pageOf(await browserRequest(jar, new URL('/connected-apps/disconnect', origin), { method: 'POST', form: { grant_id: grantId } }));
      expect(refused.status).to.equal(403);
      expect(await livePairs(grantId)).to.equal(1);
      expect((await userinfo(palTokens.access_token)).status).to.equal(200);
    });

    it('answers 404 for another member’s grant id and changes nothing', async () => {
      const strangerTokens = await authorize(stranger, studyBuddy, 'openid profile');
      const strangerGrant = await grantOf(strangerTokens.access_token);
      const { jar, page } = await signInToList(member);
      expect(grantIdsOn(page.html)).to.not.include(strangerGrant);
      const form = findForm(page.html, '/connected-apps/disconnect');
      if (!form) throw new Error('no disconnect form');
      const answer = pageOf(await submitForm(jar, page.url, form, { grant_id: strangerGrant }));
      expect(answer.status).to.equal(404);
      expect(await livePairs(strangerGrant)).to.equal(1);
      expect((await userinfo(strangerTokens.access_token)).status).to.equal(200);
      const unknown = pageOf(await submitForm(jar, page.url, form, { grant_id: 'no-such-grant' }));
      expect(unknown.status).to.equal(404);
    });

    it('Disconnect revokes every token of the family, queues the back-channel logout and comes back with a confirmation', async () => {
      // A refresh first: the family has two pairs, both must end.
      const refreshed = await refresh(coursePal, palTokens.refresh_token);
      expect(refreshed.status).to.equal(200);
      const newer = refreshed.body as unknown as Tokens;
      const grantId = await grantOf(palTokens.access_token);
      expect(await livePairs(grantId)).to.equal(2);
      const { jar, page } = await signInToList(member);
      const form = [...page.html.matchAll(/<form method="post" action="\/connected-apps\/disconnect">[\s\S]*?<\/form>/g)]
        .map((match) => match[0])
        .find((markup) => markup.includes(grantId));
      if (!form) throw new Error('no disconnect form for the grant');
      const forms = findForm(form, '/connected-apps/disconnect');
      if (!forms) throw new Error('unparsable form');
      const answer = await submitForm(jar, page.url, forms, {});
      expect(answer.kind).to.equal('redirect');
      if (answer.kind !== 'redirect') return;
      expect(answer.status).to.equal(303);
      expect(answer.location.pathname + answer.location.search).to.equal('/connected-apps?disconnected=1');
      const after = pageOf(await browserRequest(jar, answer.location));
      expect(after.html).to.include('The application was disconnected');
      expect(grantIdsOn(after.html)).to.not.include(grantId);
      expect(await livePairs(grantId)).to.equal(0);
      for (const token of [palTokens.access_token, newer.access_token]) expect((await userinfo(token)).status).to.equal(401);
      for (const token of [palTokens.refresh_token, newer.refresh_token]) {
        const again = await refresh(coursePal, token);
        expect(again.status).to.equal(400);
        expect(again.body.error).to.equal('invalid_grant');
      }
      const notices: Array<{ backchannel_logout_uri: string }> = await db()('logout_deliveries').where({ client_ref: coursePal.client.ref });
      expect(notices.map((notice) => notice.backchannel_logout_uri)).to.deep.equal(['https://pal.example/logout']);
      // The other application is untouched.
      expect((await userinfo(buddyTokens.access_token)).status).to.equal(200);
    });
  });

  describe('last use, to the hour', () => {
    it('writes last_used_at on the first presentation, not on the next ones within the hour, and again once it is an hour old', async () => {
      const tokens = await authorize(member, studyBuddy, 'openid profile');
      const grantId = await grantOf(tokens.access_token);
      const writes: string[] = [];
      const listener = (query: { sql: string }) => {
        if (/^update\b/i.test(query.sql) && query.sql.includes('last_used_at')) writes.push(query.sql);
      };
      db().on('query', listener);
      try {
        expect((await userinfo(tokens.access_token)).status).to.equal(200);
        expect((await userinfo(tokens.access_token)).status).to.equal(200);
        expect((await userinfo(tokens.access_token)).status).to.equal(200);
        // The first presentation stamps first_used_at and last_used_at in one UPDATE; the others write nothing.
        expect(writes, writes.join('\n')).to.have.length(1);
        const twoHoursAgo = new Date(Date.now() - 2 * LAST_USED_RESOLUTION_MS);
        await db()('token_pairs').where({ grant_id: grantId }).update({ last_used_at: twoHoursAgo });
        writes.length = 0;
        expect((await userinfo(tokens.access_token)).status).to.equal(200);
        expect((await userinfo(tokens.access_token)).status).to.equal(200);
        expect(writes, writes.join('\n')).to.have.length(1);
      } finally {
        db().removeListener('query', listener);
      }
      const row: { last_used_at: unknown } = await db()('token_pairs').where({ grant_id: grantId }).first('last_used_at');
      const lastUsed = new Date(typeof row.last_used_at === 'number' ? row.last_used_at : String(row.last_used_at));
      expect(Date.now() - lastUsed.getTime()).to.be.below(LAST_USED_RESOLUTION_MS);
    });
  });

  describe('last use counts a refresh', () => {
    it('stamps the refreshed pair with its creation time, with no statement of its own (the INSERT carries it)', async () => {
      const tokens = await authorize(member, studyBuddy, 'openid profile');
      const before = Date.now();
      const refreshed = await refresh(studyBuddy, tokens.refresh_token);
      expect(refreshed.status).to.equal(200);
      const row: { last_used_at: unknown; created_at: unknown } = await db()('token_pairs').where({ access_token_hash: tokenKey((refreshed.body as unknown as Tokens).access_token) }).first('last_used_at', 'created_at');
      const asDate = (value: unknown) => new Date(value instanceof Date ? value.getTime() : typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : String(value));
      expect(asDate(row.last_used_at).getTime()).to.equal(asDate(row.created_at).getTime());
      expect(asDate(row.last_used_at).getTime()).to.be.at.least(before - 1000);
    });
  });

  describe('the admin API', () => {
    let tokens: Tokens;
    let grantId: string;

    before(async () => {
      tokens = await authorize(stranger, coursePal, 'openid email');
      grantId = await grantOf(tokens.access_token);
    });

    it('lists a member’s connected apps (members:read) and an application’s grants (members:read), validated against the contract', async () => {
      const byMember = await operatorApi.call<ConnectedAppList>('listMemberConnectedApps', { path: { userId: String(stranger.id) } });
      expect(byMember.status, byMember.text).to.equal(200);
      const mine = byMember.body.data.find((app) => app.grantId === grantId);
      expect(mine?.application.clientId).to.equal(coursePal.client.clientId);
      expect(mine?.application.source).to.equal('created_by_school');
      expect(mine?.scopes).to.deep.equal(['openid', 'email']);
      expect(mine?.userId).to.equal(stranger.id);
      const byClient = await operatorApi.call<ConnectedAppList>('listOAuthApplicationGrants', { path: { clientId: coursePal.client.clientId } });
      expect(byClient.status, byClient.text).to.equal(200);
      expect(byClient.body.data.map((app) => app.grantId)).to.include(grantId);
      expect(byClient.body.data.every((app) => app.application.clientId === coursePal.client.clientId)).to.equal(true);
    });

    it('pages with limit and cursor', async () => {
      const first = await operatorApi.call<ConnectedAppList>('listMemberConnectedApps', { path: { userId: String(member.id) }, query: { limit: 1 } });
      expect(first.status, first.text).to.equal(200);
      expect(first.body.data).to.have.length(1);
      expect(first.body.nextCursor).to.be.a('string');
      const second = await operatorApi.call<ConnectedAppList>('listMemberConnectedApps', { path: { userId: String(member.id) }, query: { limit: 1, cursor: first.body.nextCursor ?? '' } });
      expect(second.status, second.text).to.equal(200);
      expect(second.body.data[0]?.grantId).to.not.equal(first.body.data[0]?.grantId);
    });

    it('refuses without the scope (403) and without a token (401)', async () => {
      const reader = await issueToken(db(), server.siteA, { scopes: ['school:read'] });
      const api = operatorApi.withToken(reader.token);
      expect((await api.call('listMemberConnectedApps', { path: { userId: String(stranger.id) } })).status).to.equal(403);
      expect((await api.call('listOAuthApplicationGrants', { path: { clientId: coursePal.client.clientId } })).status).to.equal(403);
      expect((await api.call('revokeMemberConnectedApp', { path: { userId: String(stranger.id), grantId } })).status).to.equal(403);
      expect((await operatorApi.call('revokeMemberConnectedApp', { token: null, path: { userId: String(stranger.id), grantId } })).status).to.equal(401);
      expect(await livePairs(grantId)).to.equal(1);
    });

    it('answers 404 for a grant of another member, an unknown grant and an unknown member, and changes nothing', async () => {
      const wrongMember = await operatorApi.call('revokeMemberConnectedApp', { path: { userId: String(member.id), grantId } });
      expect(wrongMember.status, wrongMember.text).to.equal(404);
      expect((await operatorApi.call('revokeMemberConnectedApp', { path: { userId: String(stranger.id), grantId: 'no-such-grant' } })).status).to.equal(404);
      expect((await operatorApi.call('listMemberConnectedApps', { path: { userId: '999999' } })).status).to.equal(404);
      expect((await operatorApi.call('listOAuthApplicationGrants', { path: { clientId: 'no-such-client' } })).status).to.equal(404);
      expect(await livePairs(grantId)).to.equal(1);
    });

    it('revokes one grant (204): every token of it stops and the back-channel logout is queued', async () => {
      const before: Array<{ id: number }> = await db()('logout_deliveries').where({ client_ref: coursePal.client.ref }).select('id');
      const answer = await operatorApi.call('revokeMemberConnectedApp', { path: { userId: String(stranger.id), grantId } });
      expect(answer.status, answer.text).to.equal(204);
      expect(await livePairs(grantId)).to.equal(0);
      expect((await userinfo(tokens.access_token)).status).to.equal(401);
      const after: Array<{ id: number }> = await db()('logout_deliveries').where({ client_ref: coursePal.client.ref }).select('id');
      expect(after.length).to.equal(before.length + 1);
      const again = await operatorApi.call('revokeMemberConnectedApp', { path: { userId: String(stranger.id), grantId } });
      expect(again.status).to.equal(404);
    });
  });

  describe('the admin area', () => {
    /** Signs the operator in to /admin on its way to `path`; answers the jar and the page. */
    async function adminPage(path: string): Promise<{ jar: CookieJar; page: Extract<BrowserAnswer, { kind: 'page' }> }> {
      const jar = new CookieJar();
      const url = new URL(path, origin);
      const signIn = pageOf(await browserRequest(jar, url));
      const form = findForm(signIn.html, '/admin/sign-in');
      if (!form) throw new Error('no admin sign-in form');
      const signedIn = await submitForm(jar, url, form, { email: operatorUser.email, password: PASSWORD });
      if (signedIn.kind !== 'redirect') throw new Error(`admin sign-in answered ${signedIn.status}`);
      return { jar, page: pageOf(await browserRequest(jar, signedIn.location)) };
    }

    it("the application's page links to its connected members; Revoke ends that member's grant only", async () => {
      const tokens = await authorize(stranger, studyBuddy, 'openid profile');
      const grantId = await grantOf(tokens.access_token);
      const applicationPath = `/admin/developers/oauth-applications/${encodeURIComponent(studyBuddy.client.clientId)}`;
      const { jar, page: application } = await adminPage(applicationPath);
      expect(application.status).to.equal(200);
      expect(application.html).to.include(`href="${applicationPath}/grants"`);
      const grants = pageOf(await browserRequest(jar, new URL(`${applicationPath}/grants`, origin)));
      expect(grants.status).to.equal(200);
      expect(dataPage(grants.html)).to.equal('admin-application-grants');
      expect(grants.html).to.include(`data-grant="${grantId}"`);
      expect(decodeEntities(grants.html)).to.include(stranger.email);
      const revokeAction = `${applicationPath}/grants/${encodeURIComponent(grantId)}/revoke`;
      const form = findForm(grants.html, revokeAction);
      if (!form) throw new Error('no revoke form');
      // A grant of another application through this application's page: 404, nothing changes.
      const palGrant = await grantOf((await authorize(stranger, coursePal, 'openid')).access_token);
      const foreign = pageOf(await browserRequest(jar, new URL(`${applicationPath}/grants/${encodeURIComponent(palGrant)}/revoke`, origin), { method: 'POST', form: { csrf_token: form.fields.get('csrf_token') ?? '' } }));
      expect(foreign.status).to.equal(404);
      expect(await livePairs(palGrant)).to.equal(1);
      // Without the CSRF token: refused.
      const noCsrf = pageOf(await browserRequest(jar, new URL(revokeAction, origin), { method: 'POST', form: {} }));
      expect(noCsrf.status).to.equal(403);
      expect(await livePairs(grantId)).to.equal(1);
      const revoked = await submitForm(jar, grants.url, form, {});
      if (revoked.kind !== 'redirect') throw new Error(`revoke answered ${revoked.status}`);
      expect(revoked.location.pathname + revoked.location.search).to.equal(`${applicationPath}/grants?revoked=1`);
      expect(await livePairs(grantId)).to.equal(0);
      expect((await userinfo(tokens.access_token)).status).to.equal(401);
      const after = pageOf(await browserRequest(jar, revoked.location));
      expect(after.html).to.include('was revoked').and.not.include(`data-grant="${grantId}"`);
    });
  });
});

describeEachDatabase('connected apps: variant B, and one site never shows or ends another site’s grants', (scratch) => {
  let server: TestServer;
  const db = () => scratch().db;

  before(async () => {
    server = await startTestServer(scratch(), { variant: 'B' });
  });
  after(() => server.stop());

  async function signedInList(origin: string, user: User): Promise<{ jar: CookieJar; page: Extract<BrowserAnswer, { kind: 'page' }> }> {
    const jar = new CookieJar();
    const url = new URL('/connected-apps', origin);
    const signIn = pageOf(await browserRequest(jar, url));
    const form = findForm(signIn.html, '/connected-apps/sign-in');
    if (!form) throw new Error('no sign-in form');
    const answer = await submitForm(jar, url, form, { email: user.email, password: PASSWORD });
    if (answer.kind !== 'redirect') throw new Error(`sign-in answered ${answer.status}: ${answer.html.slice(0, 500)}`);
    return { jar, page: pageOf(await browserRequest(jar, answer.location)) };
  }

  /** Authorizes `app` for `user` at `origin` through the pages and the token endpoint; answers the grant id. */
  async function approve(origin: string, app: TestClient, user: User): Promise<string> {
    const { verifier, challenge } = createPkcePair();
    const { code } = await authorizeViaPages({ origin, clientId: app.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid account:read', email: user.email, password: PASSWORD, codeChallenge: challenge });
    const tokens = await postForm(`${origin}/api/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: app.client.clientId, resource: origin });
    expect(tokens.status, JSON.stringify(tokens.body)).to.equal(200);
    const rows: Array<{ grant_id: string }> = await db()('token_pairs').where({ client_ref: app.client.ref }).select('grant_id');
    return rows[0]?.grant_id ?? '';
  }

  async function livePairs(grantId: string): Promise<number> {
    const rows: Array<{ id: number }> = await db()('token_pairs').where({ grant_id: grantId }).whereNull('revoked_at').select('id');
    return rows.length;
  }

  it('lists each grant at its own site only; disconnecting one site’s grant at the other site is a 404 and it stays live', async () => {
    const member = await makeUser(db(), server.siteA, ['student'], 'Bea Both');
    await grantRole(db(), server.siteB.id, member.id, 'student');
    const alpha = await makeClient(db(), server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'account:read'], name: 'Alpha Helper' });
    const beta = await makeClient(db(), server.siteB, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'account:read'], name: 'Beta Helper' });
    const alphaGrant = await approve(server.siteA.origin, alpha, member);
    const betaGrant = await approve(server.siteB.origin, beta, member);

    const atA = await signedInList(server.siteA.origin, member);
    expect(grantIdsOn(atA.page.html)).to.deep.equal([alphaGrant]);
    expect(atA.page.html).to.include('Alpha Helper').and.not.include('Beta Helper');
    const atB = await signedInList(server.siteB.origin, member);
    expect(grantIdsOn(atB.page.html)).to.deep.equal([betaGrant]);

    const form = findForm(atB.page.html, '/connected-apps/disconnect');
    if (!form) throw new Error('no disconnect form at B');
    const foreign = pageOf(await submitForm(atB.jar, atB.page.url, form, { grant_id: alphaGrant }));
    expect(foreign.status).to.equal(404);
    expect(await livePairs(alphaGrant)).to.equal(1);
    expect(await livePairs(betaGrant)).to.equal(1);
  });
});
