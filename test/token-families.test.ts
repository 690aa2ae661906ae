import { expect } from 'chai';
import type * as oauth from 'oauth4webapi';
import type { User } from '../src/accounts/users.js';
import { tokenKey } from '../src/oauth/tokens/token-keys.js';
import { removeMember, revokeRole } from '../src/people/members.js';
import { describeEachDatabase } from './support/databases.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser, postForm, type TestClient } from './support/oauth-fixtures.js';
import { runCli } from './support/processes.js';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/shared/logger.js';
import { startTestServer, testConfig, type TestServer } from './support/server.js';

interface Tokens {
  access_token: string;
  refresh_token: string;
}

interface PairState {
  id: number;
  grant_id: string;
  parent_pair_id: number | null;
  successor_pair_id: number | null;
  revoked_at: unknown;
  revoked_reason: string | null;
  first_used_at: unknown;
}

/**
 * Token families (spec: Token pair table; RFC 9700 4.14.2; RFC 7009 2.1). Every pair carries
 * the grant of the authorization code it descends from; revoking any token of the grant revokes all of its pairs.
 */
describeEachDatabase('token families: rotation chains, reuse detection and grant-wide revocation', (scratch) => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  let member: User;
  let app: TestClient;
  let operatorApp: TestClient;
  const db = () => scratch().db;

  before(async function () {
    this.timeout(60000);
    server = await startTestServer(scratch(), { variant: 'A' });
    as = await discover(server.siteA.origin);
    member = await makeUser(db(), server.siteA, ['student'], 'Fay Family');
    app = await makeClient(db(), server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'account:read'] });
    operatorApp = await makeClient(db(), server.siteA, { audience: 'operator', confidential: false, scopes: ['openid', 'school:read'] });
  });
  after(async () => server.stop());

  async function authorize(user: User = member, client: TestClient = app, scope = 'openid account:read'): Promise<Tokens> {
    const grant = await issueCode(db(), server.siteA, client, user, scope);
    const response = await exchangeCode(as, client, grant);
    expect(response.status).to.equal(200);
    return (await response.json()) as Tokens;
  }

  async function refresh(refreshToken: string, client: TestClient = app) {
    return postForm(as.token_endpoint ?? '', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.client.clientId });
  }

  async function refreshed(refreshToken: string): Promise<Tokens> {
    const response = await refresh(refreshToken);
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    return response.body as unknown as Tokens;
  }

  async function userinfo(accessToken: string): Promise<number> {
    return (await fetch(`${server.siteA.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
  }

  async function revoke(token: string): Promise<number> {
    return (await postForm(as.revocation_endpoint ?? '', { token, client_id: app.client.clientId })).status;
  }

  async function pairOf(tokens: Tokens): Promise<PairState> {
    return (await db()('token_pairs').where({ access_token_hash: tokenKey(tokens.access_token) }).first()) as PairState;
  }

  async function livePairsOf(grantId: string): Promise<number[]> {
    const rows: Array<{ id: number }> = await db()('token_pairs').where({ grant_id: grantId }).whereNull('revoked_at').orderBy('id').select('id');
    return rows.map((row) => Number(row.id));
  }

  describe('chains', () => {
    it('gives every pair of a chain the grant of its code, and a new authorization a new grant', async () => {
      const first = await authorize();
      const second = await refreshed(first.refresh_token);
      const other = await authorize();
      const [p, s, o] = await Promise.all([pairOf(first), pairOf(second), pairOf(other)]);
      expect(p.grant_id).to.be.a('string').with.length.greaterThan(15);
      expect(s.grant_id).to.equal(p.grant_id);
      expect(s.parent_pair_id).to.equal(p.id);
      expect(o.grant_id).not.to.equal(p.grant_id);
    });

    it('two generations: the successor’s first use revokes the parent (rotated); the parent’s refresh token coming back is reuse and ends the grant', async () => {
      const p = await authorize();
      const s1 = await refreshed(p.refresh_token);
      expect(await userinfo(s1.access_token)).to.equal(200);
      expect(await pairOf(p)).to.deep.include({ revoked_reason: 'rotated' });
      const reuse = await refresh(p.refresh_token);
      expect(reuse.status).to.equal(400);
      expect(reuse.body.error).to.equal('invalid_grant');
      expect(String(reuse.body.error_description)).to.match(/already rotated/);
      expect(await userinfo(s1.access_token)).to.equal(401);
      expect(await pairOf(s1)).to.deep.include({ revoked_reason: 'reuse_detected' });
      expect(await livePairsOf((await pairOf(p)).grant_id)).to.deep.equal([]);
    });

    it('three generations: refreshing S1 before it was ever presented revokes P at once, so P cannot mint a second lineage', async () => {
      const p = await authorize();
      const s1 = await refreshed(p.refresh_token);
      const s2 = await refreshed(s1.refresh_token);
      // S1 was received (its refresh token came back), so P is done; S1 stays live until S2 is first used.
      expect(await pairOf(p)).to.deep.include({ revoked_reason: 'rotated' });
      expect(await livePairsOf((await pairOf(p)).grant_id)).to.deep.equal([(await pairOf(s1)).id, (await pairOf(s2)).id]);
      expect(await userinfo(s2.access_token)).to.equal(200);
      expect(await livePairsOf((await pairOf(p)).grant_id)).to.deep.equal([(await pairOf(s2)).id]);
      // P's 30-day refresh token is reuse now, not a second lineage.
      expect((await refresh(p.refresh_token)).body.error).to.equal('invalid_grant');
      expect(await userinfo(s2.access_token)).to.equal(401);
    });

    it('keeps the lost-response retry: the old refresh token works again while its successor is unused, and the unused successor is superseded (not reuse)', async () => {
      const p = await authorize();
      const lost = await refreshed(p.refresh_token);
      const retried = await refreshed(p.refresh_token);
      expect(await pairOf(lost)).to.deep.include({ revoked_reason: 'superseded' });
      expect(await userinfo(lost.access_token)).to.equal(401);
      const stale = await refresh(lost.refresh_token);
      expect(stale.body.error).to.equal('invalid_grant');
      expect(String(stale.body.error_description)).to.match(/superseded/);
      // Presenting the superseded token ended nothing else.
      expect(await userinfo(retried.access_token)).to.equal(200);
      expect(await pairOf(p)).to.deep.include({ revoked_reason: 'rotated' });
    });

    it('a rotated refresh token presented again after its successor was itself refreshed ends the whole grant, newest pair included', async () => {
      const p = await authorize();
      const s1 = await refreshed(p.refresh_token);
      const s2 = await refreshed(s1.refresh_token);
      const s3 = await refreshed(s2.refresh_token);
      expect((await refresh(s1.refresh_token)).body.error).to.equal('invalid_grant');
      expect(await userinfo(s3.access_token)).to.equal(401);
      expect((await refresh(s3.refresh_token)).body.error).to.equal('invalid_grant');
    });
  });

  describe('revocation reaches the whole grant (RFC 7009 2.1)', () => {
    it('revoking the newest refresh token revokes the older pairs of the grant too, and no other grant', async () => {
      const p = await authorize();
      const s1 = await refreshed(p.refresh_token);
      const unrelated = await authorize();
      expect(await revoke(s1.refresh_token)).to.equal(200);
      expect(await userinfo(p.access_token)).to.equal(401);
      expect((await refresh(p.refresh_token)).body.error).to.equal('invalid_grant');
      expect(await userinfo(s1.access_token)).to.equal(401);
      expect(await userinfo(unrelated.access_token)).to.equal(200);
    });

    it('revoking the oldest token (a live access token) revokes its successors', async () => {
      const p = await authorize();
      const s1 = await refreshed(p.refresh_token);
      const s2 = await refreshed(s1.refresh_token);
      expect(await revoke(p.access_token)).to.equal(200);
      expect(await userinfo(s2.access_token)).to.equal(401);
      expect((await refresh(s2.refresh_token)).body.error).to.equal('invalid_grant');
      expect((await pairOf(s2)).revoked_reason).to.equal('revoked');
    });

    it('a replayed code revokes every pair of its grant, refreshed ones included', async () => {
      const grant = await issueCode(db(), server.siteA, app, member, 'openid account:read');
      const first = (await (await exchangeCode(as, app, grant)).json()) as Tokens;
      const s1 = await refreshed(first.refresh_token);
      const replay = await exchangeCode(as, app, grant);
      expect(replay.status).to.equal(400);
      expect(await userinfo(s1.access_token)).to.equal(401);
      expect((await pairOf(s1)).revoked_reason).to.equal('code_replayed');
    });
  });

  describe('roles', () => {
    it('revokes a member’s tokens at once when they are removed from the site; other members and other sites keep theirs', async () => {
      const leaver = await makeUser(db(), server.siteA, ['student'], 'Leo Leaver');
      const stayer = await makeUser(db(), server.siteA, ['student'], 'Sam Stayer');
      const leaving = await authorize(leaver);
      const leavingRefreshed = await refreshed(leaving.refresh_token);
      const staying = await authorize(stayer);
      await removeMember(db(), server.siteA.id, { userId: -1, roles: ['owner'] }, leaver.id);
      expect(await userinfo(leaving.access_token)).to.equal(401);
      expect(await userinfo(leavingRefreshed.access_token)).to.equal(401);
      expect((await refresh(leavingRefreshed.refresh_token)).body.error).to.equal('invalid_grant');
      expect((await pairOf(leavingRefreshed)).revoked_reason).to.equal('access_removed');
      expect(await userinfo(staying.access_token)).to.equal(200);
    });

    it('revokes only the operator-client tokens when an operator keeps a student role', async () => {
      const staff = await makeUser(db(), server.siteA, ['operator', 'student'], 'Opal Operator');
      const operatorTokens = await authorize(staff, operatorApp, 'openid school:read');
      const memberTokens = await authorize(staff);
      const { revoked, revokedPairs } = await revokeRole(db(), server.siteA.id, staff.id, 'operator');
      expect({ revoked, revokedPairs }).to.deep.equal({ revoked: true, revokedPairs: 1 });
      expect(await userinfo(operatorTokens.access_token)).to.equal(401);
      expect(await userinfo(memberTokens.access_token)).to.equal(200);
    });

    it('schoolgate role revoke and user revoke-tokens revoke through the CLI', async function () {
      this.timeout(120000);
      const person = await makeUser(db(), server.siteA, ['staff', 'student'], 'Cli Person');
      const operatorTokens = await authorize(person, operatorApp, 'openid school:read');
      const memberTokens = await authorize(person);
      const env = { DATABASE_URL: scratch().url };
      const role = await runCli(['role', 'revoke', '--site', server.siteA.origin, '--email', person.email, '--role', 'staff', '--json'], env);
      expect(role.code, role.stderr).to.equal(0);
      expect(JSON.parse(role.stdout)).to.deep.include({ revoked: true, roles: ['student'], revokedPairs: 1 });
      expect(await userinfo(operatorTokens.access_token)).to.equal(401);
      expect(await userinfo(memberTokens.access_token)).to.equal(200);
      const all = await runCli(['user', 'revoke-tokens', '--site', server.siteA.origin, '--email', person.email, '--json'], env);
      expect(all.code, all.stderr).to.equal(0);
      expect(JSON.parse(all.stdout)).to.deep.include({ revokedPairs: 1 });
      expect(await userinfo(memberTokens.access_token)).to.equal(401);
    });
  });

  describe('concurrent refreshes of one token', () => {
    it('answers all 100 with 200; each supersedes the one before, so exactly one successor is live, and the old pair stays live until it is used', async function () {
      this.timeout(120000);
      const p = await authorize();
      const responses = await Promise.all(Array.from({ length: 100 }, () => refresh(p.refresh_token)));
      expect(responses.map((response) => response.status)).to.deep.equal(Array.from({ length: 100 }, () => 200));
      const parent = await pairOf(p);
      const successors = (await db()('token_pairs').where({ parent_pair_id: parent.id }).select('id', 'revoked_reason')) as Array<{ id: number; revoked_reason: string | null }>;
      expect(successors).to.have.length(100);
      const live = successors.filter((row) => row.revoked_reason === null);
      expect(live.map((row) => row.id)).to.deep.equal([parent.successor_pair_id]);
      expect(successors.filter((row) => row.revoked_reason === 'superseded')).to.have.length(99);
      expect(parent.revoked_at).to.equal(null);
      // Which answer holds the live successor: the one whose pair is the parent's successor.
      const pairs = await Promise.all(responses.map((response) => pairOf(response.body as unknown as Tokens)));
      const winner = responses[pairs.findIndex((pair) => pair.id === parent.successor_pair_id)]?.body as unknown as Tokens;
      const loser = responses[pairs.findIndex((pair) => pair.id !== parent.successor_pair_id)]?.body as unknown as Tokens;
      expect(await userinfo(loser.access_token)).to.equal(401);
      expect(await userinfo(p.access_token)).to.equal(200);
      expect(await userinfo(winner.access_token)).to.equal(200);
      expect(await userinfo(p.access_token)).to.equal(401);
      expect(await livePairsOf(parent.grant_id)).to.deep.equal([parent.successor_pair_id]);
    });

    it('answers the same across two instances over one database: 50 refreshes at each, all 200, exactly one live successor', async function () {
      this.timeout(180000);
      const second = await startServer(testConfig({ trustProxy: true, database: scratch().config }), { logger: createLogger('silent') });
      try {
        const p = await authorize();
        const viaSecond = { 'x-forwarded-host': new URL(server.siteA.origin).host, 'x-forwarded-proto': 'http' };
        const secondTokenEndpoint = `${second.listeningOn}/api/oauth/token`;
        const fields = { grant_type: 'refresh_token', refresh_token: p.refresh_token, client_id: app.client.clientId };
        const responses = await Promise.all(Array.from({ length: 100 }, (_, index) => (index % 2 === 0 ? refresh(p.refresh_token) : postForm(secondTokenEndpoint, fields, viaSecond))));
        expect(responses.map((response) => response.status)).to.deep.equal(Array.from({ length: 100 }, () => 200));
        const parent = await pairOf(p);
        expect(await livePairsOf(parent.grant_id)).to.deep.equal([parent.id, parent.successor_pair_id]);
        // The live successor, first used at the second instance, retires the old pair at the first one too.
        const pairs = await Promise.all(responses.map((response) => pairOf(response.body as unknown as Tokens)));
        const winner = responses[pairs.findIndex((pair) => pair.id === parent.successor_pair_id)]?.body as unknown as Tokens;
        const used = await fetch(`${second.listeningOn}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${winner.access_token}`, ...viaSecond } });
        expect(used.status).to.equal(200);
        expect(await userinfo(p.access_token)).to.equal(401);
        expect(await livePairsOf(parent.grant_id)).to.deep.equal([parent.successor_pair_id]);
      } finally {
        await second.stop(1000);
      }
    });

    it('never leaves two live lineages when a refresh races the first use of the previous successor', async function () {
      this.timeout(60000);
      for (let round = 0; round < 5; round += 1) {
        const p = await authorize();
        const s1 = await refreshed(p.refresh_token);
        const [used, again] = await Promise.all([userinfo(s1.access_token), refresh(p.refresh_token)]);
        expect(used).to.equal(again.status === 200 ? 401 : 200);
        const parent = await pairOf(p);
        const live = await livePairsOf(parent.grant_id);
        if (again.status === 200) {
          // The refresh won: S1 was superseded before its use counted, and P's new successor is the only one.
          expect(live).to.deep.equal([parent.id, parent.successor_pair_id]);
        } else {
          // The use won: P was rotated, so P coming back was reuse and the grant ended.
          expect(again.body.error).to.equal('invalid_grant');
          expect(live).to.deep.equal([]);
        }
      }
    });
  });
});
