import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import type { User } from '../src/accounts/users.js';
import { mintToken, tokenKey } from '../src/oauth/tokens/token-keys.js';
import { newGrantId, insertPair } from '../src/oauth/tokens/store.js';
import { sha256Hex } from '../src/shared/random.js';
import { describeEachDatabase } from './support/databases.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser, postForm, type TestClient } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

// Spec, Token record: tokens are stored only as hashes. Their keys lead with the instant they were minted, so that
// new keys go to the end of the unique indexes rather than to a random page.
describe('token keys', () => {
  it('mints the prefix, the instant in 48 bits and 256 random bits, base64url', () => {
    const now = new Date('2026-11-27T17:00:00.123Z');
    const token = mintToken('sga_', now);
    expect(token).to.match(/^sga_[A-Za-z0-9_-]{51}$/);
    const body = Buffer.from(token.slice(4), 'base64url');
    expect(body.length).to.equal(38);
    expect(body.readUIntBE(0, 6)).to.equal(now.getTime());
    expect(mintToken('sga_', now).slice(12)).to.not.equal(token.slice(12));
    expect(mintToken('sgr_', now)).to.match(/^sgr_[A-Za-z0-9_-]{51}$/);
  });

  it('keys a token by its instant in hex and the first 208 bits of its SHA-256: never the token itself', () => {
    const now = new Date('2026-11-27T17:00:00.123Z');
    const token = mintToken('sgr_', now);
    const key = tokenKey(token);
    expect(key).to.match(/^[0-9a-f]{64}$/);
    expect(key.slice(0, 12)).to.equal(now.getTime().toString(16).padStart(12, '0'));
    expect(key.slice(12)).to.equal(sha256Hex(token).slice(0, 52));
    expect(key).to.not.include(token.slice(4));
  });

  it('orders the keys of tokens minted later after those minted earlier, whatever their random bits', () => {
    const start = Date.parse('2026-11-27T17:00:00Z');
    const keys = Array.from({ length: 200 }, (_, index) => tokenKey(mintToken(index % 2 === 0 ? 'sga_' : 'sgr_', new Date(start + index))));
    expect([...keys].sort()).to.deep.equal(keys);
  });

  it('keys a token of the earlier form (43 characters after the prefix), and anything else presented, by its whole SHA-256', () => {
    for (const presented of [`sga_${randomBytes(32).toString('base64url')}`, `sgr_${randomBytes(32).toString('base64url')}`, 'sga_not-a-token', '', `sga_${'A'.repeat(50)}`, `sgc_${'A'.repeat(51)}`]) {
      expect(tokenKey(presented), presented).to.equal(sha256Hex(presented));
    }
  });
});

describeEachDatabase('tokens minted before their keys led with the instant [variant A]', (scratch) => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  let member: User;
  let app: TestClient;
  const db = () => scratch().db;

  before(async () => {
    server = await startTestServer(scratch(), { variant: 'A' });
    as = await discover(server.siteA.origin);
    member = await makeUser(db(), server.siteA, ['student'], 'Lena Legacy');
    app = await makeClient(db(), server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'account:read'] });
  });
  after(async () => server.stop());

  /** A live pair as an earlier version stored it: 43 random characters after the prefix, keyed by the whole SHA-256. */
  async function earlierPair(): Promise<{ id: number; accessToken: string; refreshToken: string }> {
    const issued = await insertPair(db(), { grantId: newGrantId(), siteId: server.siteA.id, clientRef: app.client.ref, userId: member.id, scopes: ['openid', 'profile', 'account:read'], resource: server.siteA.origin, schoolId: server.siteA.id, authTime: new Date() });
    const accessToken = `sga_${randomBytes(32).toString('base64url')}`;
    const refreshToken = `sgr_${randomBytes(32).toString('base64url')}`;
    await db()('token_pairs').where({ id: issued.pair.id }).update({ access_token_hash: sha256Hex(accessToken), refresh_token_hash: sha256Hex(refreshToken) });
    return { id: issued.pair.id, accessToken, refreshToken };
  }

  const userinfoStatus = async (accessToken: string) => (await fetch(`${server.siteA.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;

  it('stores each new pair under keys that grow with time, and finds the tokens by them', async () => {
    const keys: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      const grant = await issueCode(db(), server.siteA, app, member, 'openid profile account:read');
      const tokens = await oauth.processAuthorizationCodeResponse(as, app.oauthClient, await exchangeCode(as, app, grant), { expectedNonce: grant.nonce, requireIdToken: true });
      expect(tokens.access_token).to.match(/^sga_[A-Za-z0-9_-]{51}$/);
      const row = (await db()('token_pairs').where({ access_token_hash: tokenKey(tokens.access_token) }).first('access_token_hash', 'refresh_token_hash')) as { access_token_hash: string; refresh_token_hash: string };
      expect(row.refresh_token_hash).to.equal(tokenKey(String(tokens.refresh_token)));
      keys.push(row.access_token_hash);
      expect(await userinfoStatus(tokens.access_token)).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect([...keys].sort()).to.deep.equal(keys);
  });

  it('still accepts an access token of the earlier form at userinfo', async () => {
    const earlier = await earlierPair();
    expect(await userinfoStatus(earlier.accessToken)).to.equal(200);
    expect(await userinfoStatus(`${earlier.accessToken.slice(0, -1)}${earlier.accessToken.endsWith('A') ? 'B' : 'A'}`)).to.equal(401);
  });

  it('refreshes a refresh token of the earlier form into a pair of the new form', async () => {
    const earlier = await earlierPair();
    const refreshed = await postForm(String(as.token_endpoint), { grant_type: 'refresh_token', refresh_token: earlier.refreshToken, client_id: app.client.clientId });
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    expect(refreshed.body.access_token).to.match(/^sga_[A-Za-z0-9_-]{51}$/);
    expect(refreshed.body.refresh_token).to.match(/^sgr_[A-Za-z0-9_-]{51}$/);
    const successor = (await db()('token_pairs').where({ refresh_token_hash: tokenKey(String(refreshed.body.refresh_token)) }).first('parent_pair_id')) as { parent_pair_id: number };
    expect(successor.parent_pair_id).to.equal(earlier.id);
    expect(await userinfoStatus(String(refreshed.body.access_token))).to.equal(200);
    // The successor's first use retired the earlier pair (reason rotated).
    expect(await userinfoStatus(earlier.accessToken)).to.equal(401);
  });

  it('revokes a pair by a refresh token of the earlier form (RFC 7009)', async () => {
    const earlier = await earlierPair();
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, app.oauthClient, app.auth, earlier.refreshToken, insecure));
    expect(await userinfoStatus(earlier.accessToken)).to.equal(401);
    const row = (await db()('token_pairs').where({ id: earlier.id }).first('revoked_reason')) as { revoked_reason: string };
    expect(row.revoked_reason).to.equal('revoked');
  });
});
