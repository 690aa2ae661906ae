import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import type { User } from '../src/accounts/users.js';
import { describeEachDatabase } from './support/databases.js';
import { signInWithPassword } from '../src/accounts/sign-in.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser, PASSWORD, postForm, type TestClient } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * Statements per request on the OAuth hot paths: exact counts, so a change that adds a round
 * trip shows here. BEGIN and COMMIT count (knex reports them as queries).
 */
describeEachDatabase('OAuth hot paths: SQL statements per request', (scratch) => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  let member: User;
  let app: TestClient;
  let statements: string[] = [];
  const db = () => scratch().db;

  before(async () => {
    server = await startTestServer(scratch(), { variant: 'A' });
    as = await discover(server.siteA.origin);
    member = await makeUser(db(), server.siteA, ['student'], 'Quinn Count');
    app = await makeClient(db(), server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'email', 'account:read'] });
    db().on('query', (query: { sql: string }) => statements.push(query.sql));
  });
  after(async () => server.stop());

  async function counted<T>(request: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    statements = [];
    const result = await request();
    return { result, statements };
  }

  async function tokens(): Promise<{ access_token: string; refresh_token: string }> {
    const grant = await issueCode(db(), server.siteA, app, member, 'openid profile email account:read');
    return (await (await exchangeCode(as, app, grant)).json()) as { access_token: string; refresh_token: string };
  }

  const userinfo = (token: string) => fetch(`${server.siteA.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });

  it('userinfo: one statement for the token with its client, owner and roles (the site is cached); the first use of a refreshed token adds one short transaction', async () => {
    const original = await tokens();
    expect((await userinfo(original.access_token)).status).to.equal(200);
    const steady = await counted(() => userinfo(original.access_token));
    expect(steady.result.status).to.equal(200);
    expect(steady.statements, steady.statements.join('\n')).to.have.length(1);
    const refreshed = (await postForm(as.token_endpoint ?? '', { grant_type: 'refresh_token', refresh_token: original.refresh_token, client_id: app.client.clientId })).body as { access_token: string };
    const firstUse = await counted(() => userinfo(refreshed.access_token));
    expect(firstUse.result.status).to.equal(200);
    // + BEGIN, retire the parent, mark the first use, COMMIT
    expect(firstUse.statements, firstUse.statements.join('\n')).to.have.length(5);
  });

  it('refresh grant: the pair with its client and its owner’s roles, then BEGIN, one locking read, INSERT, one UPDATE, COMMIT (the site is cached)', async () => {
    const original = await tokens();
    const refresh = () => postForm(as.token_endpoint ?? '', { grant_type: 'refresh_token', refresh_token: original.refresh_token, client_id: app.client.clientId });
    expect((await refresh()).status).to.equal(200);
    const again = await counted(refresh);
    expect(again.result.status).to.equal(200);
    expect(again.statements, again.statements.join('\n')).to.have.length(6);
  });

  it('refresh grant of a confidential client: the same six statements with client_secret_basic as with client_secret_post', async () => {
    for (const method of ['client_secret_post', 'client_secret_basic'] as const) {
      const confidential = await makeClient(db(), server.siteA, { audience: 'member', confidential: true, scopes: ['openid', 'profile', 'account:read'] });
      await db()('oauth_clients').where({ id: confidential.client.ref }).update({ token_endpoint_auth_method: method });
      const secret = confidential.secret ?? '';
      const grant = await issueCode(db(), server.siteA, confidential, member, 'openid profile account:read');
      const original = (await (await exchangeCode(as, { ...confidential, auth: method === 'client_secret_basic' ? oauth.ClientSecretBasic(secret) : oauth.ClientSecretPost(secret) }, grant)).json()) as { refresh_token: string };
      const basic = { authorization: `Basic ${Buffer.from(`${encodeURIComponent(confidential.client.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}` };
      const fields = { grant_type: 'refresh_token', refresh_token: original.refresh_token, ...(method === 'client_secret_post' ? { client_id: confidential.client.clientId, client_secret: secret } : {}) };
      const refresh = () => postForm(as.token_endpoint ?? '', fields, method === 'client_secret_basic' ? basic : {});
      expect((await refresh()).status).to.equal(200);
      const again = await counted(refresh);
      expect(again.result.status, method).to.equal(200);
      expect(again.statements, `${method}\n${again.statements.join('\n')}`).to.have.length(6);
    }
  });

  it('DPoP (RFC 9449): userinfo and the refresh grant each add exactly the proof\'s single-use jti insert', async () => {
    const keys = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const DPoP = oauth.DPoP(app.oauthClient, keys);
    const grant = await issueCode(db(), server.siteA, app, member, 'openid profile email account:read');
    const bound = (await (await exchangeCode(as, app, grant, { DPoP })).json()) as { access_token: string; refresh_token: string; token_type: string };
    expect(bound.token_type).to.equal('DPoP');
    const boundUserinfo = () => oauth.protectedResourceRequest(bound.access_token, 'GET', new URL(`${server.siteA.origin}/api/oauth/userinfo`), new Headers(), null, { DPoP, [oauth.allowInsecureRequests]: true });
    expect((await boundUserinfo()).status).to.equal(200);
    const steady = await counted(boundUserinfo);
    expect(steady.result.status).to.equal(200);
    // the token read, then the proof's jti
    expect(steady.statements, steady.statements.join('\n')).to.have.length(2);

    const refresh = (refreshToken: string) => oauth.refreshTokenGrantRequest(as, app.oauthClient, app.auth, refreshToken, { DPoP, [oauth.allowInsecureRequests]: true });
    expect((await refresh(bound.refresh_token)).status).to.equal(200);
    const again = await counted(() => refresh(bound.refresh_token));
    expect(again.result.status).to.equal(200);
    // the six statements of a refresh, and the proof's jti
    expect(again.statements, again.statements.join('\n')).to.have.length(7);
  });

  it('sign-in: the account, its name at the site and both of its password hashes (the site’s and its own) in one statement', async () => {
    const signIn = await counted(() => signInWithPassword(db(), { siteId: server.siteA.id, email: member.email, password: PASSWORD, clientAddress: '198.51.100.7' }));
    expect(signIn.result.kind).to.equal('signed_in');
    const accountReads = signIn.statements.filter((sql) => /\busers\b/.test(sql));
    expect(accountReads, signIn.statements.join('\n')).to.have.length(1);
    expect(accountReads[0]).to.match(/site_memberships/);
  });
});
