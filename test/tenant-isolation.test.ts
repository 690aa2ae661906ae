import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { findUserByEmail, type User } from '../src/accounts/users.js';
import { importSiteDocument } from '../src/import/import-site.js';
import type { Site } from '../src/sites/sites.js';
import { AdminApi, issueToken } from './support/admin.js';
import { authorizeViaPages, createPkcePair } from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { gql, memberToken } from './support/member-api.js';
import { discover, exchangeCode, issueCode, makeClient, REDIRECT_URI, type TestClient } from './support/oauth-fixtures.js';
import { runCli } from './support/processes.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * One account, two schools (docs/data-model.md, "Accounts shared by schools"). Every write scoped to
 * school B (its import, its admin API, a sign-in there) changes nothing school A serves: userinfo, the id_token, the
 * member GraphQL API, /mcp and A's admin API answer exactly what they answered before, and a password school B gives
 * the account signs it in at B only. The account's own password is the host's (`user set-password`), never a school's.
 */
describeEachDatabase('tenant isolation: an account shared by two schools', (scratch) => {
  const EMAIL = 'shared.person@example.com';
  const PASSWORD_AT_A = 'password-school-a-gave';
  const PASSWORD_AT_B = 'password-school-b-gave';
  const MEMBER_SCOPE = 'openid profile email account:read';
  const PEOPLE_SCOPES = ['members:read', 'members:write'];
  let server: TestServer;
  let user: User;
  let tokenAtA: string;
  let appAtA: TestClient;
  let appAtB: TestClient;
  let adminA: AdminApi;
  let adminB: AdminApi;

  const importInto = (site: Site, person: { name: string; avatarUrl: string; password: string; roles: string[] }) =>
    importSiteDocument(scratch().db, { formatVersion: 1, site: { origin: site.origin, name: site.name }, users: [{ email: EMAIL, ...person }] });

  before(async () => {
    server = await startTestServer(scratch());
    await importInto(server.siteA, { name: 'Ada at Alpha', avatarUrl: 'https://alpha.example/ada.png', password: PASSWORD_AT_A, roles: ['student'] });
    const found = await findUserByEmail(scratch().db, EMAIL);
    if (!found) throw new Error('the import created no account');
    user = found;
    tokenAtA = await memberToken(scratch().db, server.siteA, user, MEMBER_SCOPE);
    appAtA = await makeClient(scratch().db, server.siteA, { audience: 'member', confidential: false, scopes: MEMBER_SCOPE.split(' ') });
    appAtB = await makeClient(scratch().db, server.siteB, { audience: 'member', confidential: false, scopes: MEMBER_SCOPE.split(' ') });
    adminA = await AdminApi.connect(server.siteA.origin, (await issueToken(scratch().db, server.siteA, { scopes: PEOPLE_SCOPES, roles: ['owner', 'operator'] })).token);
    adminB = await AdminApi.connect(server.siteB.origin, (await issueToken(scratch().db, server.siteB, { scopes: PEOPLE_SCOPES, roles: ['owner', 'operator'] })).token);
  });
  after(() => server.stop());

  async function userinfo(origin: string, token: string): Promise<Record<string, unknown>> {
    const response = await fetch(`${origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).to.equal(200);
    return (await response.json()) as Record<string, unknown>;
  }

  /** The claims of a fresh id_token from school A's token endpoint, without the per-token ones (times, nonce, hashes). */
  async function idTokenClaimsAtA(): Promise<Record<string, unknown>> {
    const grant = await issueCode(scratch().db, server.siteA, appAtA, user, MEMBER_SCOPE);
    const body = (await (await exchangeCode(await discover(server.siteA.origin), appAtA, grant)).json()) as { id_token?: string };
    const { iat: _iat, exp: _exp, auth_time: _authTime, nonce: _nonce, at_hash: _atHash, jti: _jti, ...claims } = decodeJwt(body.id_token ?? '');
    return claims;
  }

  async function mcpAtA(): Promise<unknown> {
    const client = new Client({ name: 'isolation-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.siteA.origin}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tokenAtA}` } } }));
    try {
      return (await client.callTool({ name: 'list_my_courses', arguments: {} })).content;
    } finally {
      await client.close();
    }
  }

  /** Everything school A serves about the account, through each of its interfaces. */
  async function viewOfA(): Promise<Record<string, unknown>> {
    const member = await adminA.call('getMember', { path: { userId: String(user.id) } });
    expect(member.status, member.text).to.equal(200);
    return {
      userinfo: await userinfo(server.siteA.origin, tokenAtA),
      idToken: await idTokenClaimsAtA(),
      graphql: (await gql(server.siteA.origin, 'A', tokenAtA, '{ viewer { id name email avatar } }')).data,
      mcp: await mcpAtA(),
      admin: { body: member.body, etag: member.headers.get('etag') },
    };
  }

  /** Signs in at a school through its authorization pages; false when the pages refuse the password. */
  async function signsIn(site: Site, password: string): Promise<boolean> {
    const { challenge } = createPkcePair();
    const app = site.id === server.siteA.id ? appAtA : appAtB;
    const attempt = authorizeViaPages({ origin: site.origin, clientId: app.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid', email: EMAIL, password, codeChallenge: challenge });
    return attempt.then(
      () => true,
      (error: Error) => {
        if (!/failed/.test(error.message)) throw error;
        return false;
      },
    );
  }

  it("shows school A's profile of the account everywhere at A", async () => {
    const view = await viewOfA();
    expect(view.userinfo).to.include({ name: 'Ada at Alpha', picture: 'https://alpha.example/ada.png', email: EMAIL });
    expect(view.idToken).to.include({ name: 'Ada at Alpha', picture: 'https://alpha.example/ada.png' });
    expect(view.graphql).to.deep.equal({ viewer: { id: String(user.id), name: 'Ada at Alpha', email: EMAIL, avatar: 'https://alpha.example/ada.png' } });
    expect(view.admin).to.have.nested.property('body.name', 'Ada at Alpha');
  });

  it("school B's admin API adds the account under another name: nothing at A changes", async () => {
    const before = await viewOfA();
    const added = await adminB.call<{ name: string }>('createMember', { body: { email: EMAIL, name: 'Ada by Beta admin', roles: ['student'] } });
    expect(added.status, added.text).to.equal(201);
    expect(added.body.name).to.equal('Ada by Beta admin');
    expect(await viewOfA()).to.deep.equal(before);
  });

  it("school B's import renames the account, changes its picture and gives it a password: nothing at A changes", async () => {
    const before = await viewOfA();
    const report = await importInto(server.siteB, { name: 'Ada at Beta', avatarUrl: 'https://beta.example/evil.png', password: PASSWORD_AT_B, roles: ['student', 'lecturer'] });
    expect(report.counts.users).to.deep.equal({ created: 0, updated: 0, unchanged: 1 });
    expect(report.counts.site_memberships).to.include({ updated: 1 });
    expect(await viewOfA()).to.deep.equal(before);
    // School B shows its own profile of the account.
    const atB = await userinfo(server.siteB.origin, await memberToken(scratch().db, server.siteB, user, MEMBER_SCOPE));
    expect(atB).to.include({ name: 'Ada at Beta', picture: 'https://beta.example/evil.png', email: EMAIL });
  });

  it("a school's password signs the account in at that school only, and signing in at B changes nothing at A", async () => {
    const before = await viewOfA();
    expect(await signsIn(server.siteB, PASSWORD_AT_B)).to.equal(true);
    expect(await signsIn(server.siteA, PASSWORD_AT_B)).to.equal(false);
    expect(await signsIn(server.siteB, PASSWORD_AT_A)).to.equal(false);
    expect(await signsIn(server.siteA, PASSWORD_AT_A)).to.equal(true);
    expect(await viewOfA()).to.deep.equal(before);
  });

  it("the host's `user set-password` sets the account's own password, valid at every school, and no school's profile", async () => {
    const before = await viewOfA();
    const result = await runCli(['user', 'set-password', '--email', EMAIL, '--password-stdin'], { DATABASE_URL: scratch().url }, { input: 'the-account-owners-own\n' });
    expect(result.code, result.stderr).to.equal(0);
    expect(await signsIn(server.siteA, 'the-account-owners-own')).to.equal(true);
    expect(await signsIn(server.siteB, 'the-account-owners-own')).to.equal(true);
    // The account changed (A's admin API dates and tags the member by it); what A shows of it did not.
    const shown = ({ admin, ...view }: Record<string, unknown>) => {
      const { updatedAt: _updatedAt, ...member } = (admin as { body: Record<string, unknown> }).body;
      return { ...view, member };
    };
    expect(shown(await viewOfA())).to.deep.equal(shown(before));
  });
});
