import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import type { User } from '../src/accounts/users.js';
import { describeEachDatabase } from './support/databases.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser, postForm, REDIRECT_URI, type TestClient } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

describeEachDatabase('token endpoint, refresh rotation, userinfo and revocation [variant A]', (scratch) => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  let member: User;
  let publicApp: TestClient;
  let confidentialApp: TestClient;
  const db = () => scratch().db;

  before(async () => {
    server = await startTestServer(scratch(), { variant: 'A' });
    as = await discover(server.siteA.origin);
    member = await makeUser(db(), server.siteA, ['student'], 'Mia Member');
    publicApp = await makeClient(db(), server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'email', 'account:read', 'account:write'] });
    confidentialApp = await makeClient(db(), server.siteA, { audience: 'member', confidential: true, scopes: ['openid', 'profile', 'email', 'account:read'] });
  });
  after(async () => server.stop());

  async function tokensFor(app: TestClient, scope = 'openid profile email account:read'): Promise<oauth.TokenEndpointResponse> {
    const grant = await issueCode(db(), server.siteA, app, member, scope);
    const openid = scope.split(' ').includes('openid');
    return oauth.processAuthorizationCodeResponse(as, app.oauthClient, await exchangeCode(as, app, grant), openid ? { expectedNonce: grant.nonce, requireIdToken: true } : {});
  }

  async function userinfoStatus(accessToken: string): Promise<number> {
    return (await fetch(`${server.siteA.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
  }

  describe('authorization_code exchange', () => {
    it('answers the spec token response: Bearer, two hours, refresh token, scope, and variant A school fields', async () => {
      const grant = await issueCode(db(), server.siteA, publicApp, member, 'openid profile email account:read');
      const response = await exchangeCode(as, publicApp, grant);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      const body = await processed(response, grant.nonce);
      expect(body).to.include({ token_type: 'bearer', expires_in: 7200, scope: 'openid profile email account:read', school_id: server.siteA.id, school_subdomain: server.siteA.subdomain });
      expect(body.access_token).to.match(/^sga_[A-Za-z0-9_-]{51}$/);
      expect(body.refresh_token).to.match(/^sgr_[A-Za-z0-9_-]{51}$/);
      expect(body.created_at).to.be.a('number').within(Date.now() / 1000 - 60, Date.now() / 1000 + 1);
    });

    it('signs an ES256 id_token that a strict client verifies against the JWKS: iss, aud, 10-minute exp, nonce, kid', async () => {
      const grant = await issueCode(db(), server.siteA, publicApp, member, 'openid profile email account:read');
      const response = await exchangeCode(as, publicApp, grant);
      const result = await oauth.processAuthorizationCodeResponse(as, publicApp.oauthClient, response, { expectedNonce: grant.nonce, requireIdToken: true });
      await oauth.validateApplicationLevelSignature(as, response, insecure);
      const claims = oauth.getValidatedIdTokenClaims(result);
      expect(claims).to.include({ iss: server.siteA.origin, aud: publicApp.client.clientId, sub: String(member.id), nonce: grant.nonce, email: member.email, name: member.name, picture: member.avatarUrl, org_id: String(server.siteA.id) });
      expect((claims?.exp ?? 0) - (claims?.iat ?? 0)).to.equal(600);
      expect(claims?.roles).to.deep.equal(['student']);
      const header = JSON.parse(Buffer.from(String(result.id_token).split('.')[0] ?? '', 'base64url').toString()) as { alg: string; kid: string };
      expect(header.alg).to.equal('ES256');
      const jwks = (await (await fetch(String(as.jwks_uri))).json()) as { keys: Array<{ kid: string }> };
      expect(jwks.keys.map((key) => key.kid)).to.include(header.kid);
    });

    it('gives no id_token without the openid scope', async () => {
      const result = await tokensFor(publicApp, 'account:read');
      expect(result.id_token).to.equal(undefined);
    });

    it('authenticates a confidential client with client_secret_post and refuses it without the secret or with a wrong one', async () => {
      expect((await tokensFor(confidentialApp)).access_token).to.be.a('string');
      for (const secret of [undefined, 'wrong-secret']) {
        const grant = await issueCode(db(), server.siteA, confidentialApp, member, 'openid');
        const response = await postForm(as.token_endpoint ?? '', {
          grant_type: 'authorization_code', code: grant.code, redirect_uri: REDIRECT_URI, client_id: confidentialApp.client.clientId, code_verifier: grant.verifier, resource: server.siteA.origin,
          ...(secret === undefined ? {} : { client_secret: secret }),
        });
        expect(response.status).to.equal(401);
        expect(response.body.error).to.equal('invalid_client');
        expect(response.headers.get('cache-control')).to.equal('no-store');
      }
    });

    it('refuses a public client that sends a secret', async () => {
      const grant = await issueCode(db(), server.siteA, publicApp, member, 'openid');
      const response = await postForm(as.token_endpoint ?? '', { grant_type: 'authorization_code', code: grant.code, redirect_uri: REDIRECT_URI, client_id: publicApp.client.clientId, client_secret: 'x', code_verifier: grant.verifier, resource: server.siteA.origin });
      expect(response).to.deep.include({ status: 401 });
      expect(response.body.error).to.equal('invalid_client');
    });

    it('uses a code once; a replay is invalid_grant and revokes the tokens the code issued', async () => {
      const grant = await issueCode(db(), server.siteA, publicApp, member, 'openid account:read');
      const first = await processed(await exchangeCode(as, publicApp, grant), grant.nonce);
      expect(await userinfoStatus(first.access_token)).to.equal(200);
      const replay = await exchangeCode(as, publicApp, grant);
      expect(replay.status).to.equal(400);
      expect(await replay.json()).to.include({ error: 'invalid_grant' });
      expect(await userinfoStatus(first.access_token)).to.equal(401);
      const refresh = await oauth.refreshTokenGrantRequest(as, publicApp.oauthClient, publicApp.auth, String(first.refresh_token), insecure);
      expect(refresh.status).to.equal(400);
    });

    for (const [name, change, error] of [
      ['a wrong code_verifier', { code_verifier: 'x'.repeat(43) }, 'invalid_grant'],
      ['a malformed code_verifier', { code_verifier: 'short' }, 'invalid_request'],
      ['another redirect_uri', { redirect_uri: 'http://127.0.0.1:8765/other' }, 'invalid_grant'],
      ['no resource', { resource: undefined }, 'invalid_request'],
      ['another resource', { resource: 'https://elsewhere.example' }, 'invalid_target'],
      ['an unknown code', { code: 'sgc_unknown' }, 'invalid_grant'],
      ['no code_verifier', { code_verifier: undefined }, 'invalid_request'],
    ] as const) {
      it(`refuses ${name} with ${error}`, async () => {
        const grant = await issueCode(db(), server.siteA, publicApp, member, 'openid');
        const base: Record<string, string | undefined> = { grant_type: 'authorization_code', code: grant.code, redirect_uri: REDIRECT_URI, client_id: publicApp.client.clientId, code_verifier: grant.verifier, resource: server.siteA.origin };
        const fields: Record<string, string | undefined> = Object.assign(base, change);
        const response = await postForm(as.token_endpoint ?? '', Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined)));
        expect(response.status).to.equal(400);
        expect(response.body.error).to.equal(error);
        expect(response.body.error_description).to.be.a('string').and.not.equal('');
      });
    }

    it('refuses an expired code', async () => {
      const grant = await issueCode(db(), server.siteA, publicApp, member, 'openid');
      await db()('authorization_codes').update({ expires_at: new Date(Date.now() - 1000) }).where('id', '>', 0).whereNull('consumed_at');
      const response = await exchangeCode(as, publicApp, grant);
      expect(await response.json()).to.include({ error: 'invalid_grant' });
    });

    it('refuses a code issued to another client', async () => {
      const grant = await issueCode(db(), server.siteA, publicApp, member, 'openid');
      const response = await postForm(as.token_endpoint ?? '', { grant_type: 'authorization_code', code: grant.code, redirect_uri: REDIRECT_URI, client_id: confidentialApp.client.clientId, client_secret: confidentialApp.secret ?? '', code_verifier: grant.verifier, resource: server.siteA.origin });
      expect(response.body.error).to.equal('invalid_grant');
    });

    it('keeps earlier pairs live when the member authorizes again', async () => {
      const first = await tokensFor(publicApp);
      const second = await tokensFor(publicApp);
      expect(await userinfoStatus(first.access_token)).to.equal(200);
      expect(await userinfoStatus(second.access_token)).to.equal(200);
    });
  });

  describe('refresh rotation (spec: Token pair table)', () => {
    it('issues a new pair without an id_token; the old pair stays live until the new access token is first used', async () => {
      const original = await tokensFor(publicApp);
      const refreshed = await oauth.processRefreshTokenResponse(as, publicApp.oauthClient, await oauth.refreshTokenGrantRequest(as, publicApp.oauthClient, publicApp.auth, String(original.refresh_token), insecure));
      expect(refreshed.id_token).to.equal(undefined);
      expect(refreshed.access_token).not.to.equal(original.access_token);
      expect(refreshed).to.include({ school_id: server.siteA.id, scope: original.scope });
      // Until the new access token is presented, the old one works.
      expect(await userinfoStatus(original.access_token)).to.equal(200);
      expect(await userinfoStatus(refreshed.access_token)).to.equal(200);
      // Its first presentation revoked the old pair: both old tokens.
      expect(await userinfoStatus(original.access_token)).to.equal(401);
      const oldRefresh = await oauth.refreshTokenGrantRequest(as, publicApp.oauthClient, publicApp.auth, String(original.refresh_token), insecure);
      expect(await oldRefresh.json()).to.include({ error: 'invalid_grant' });
    });

    it('lets a lost refresh response be retried with the old refresh token; the unused successor is superseded', async () => {
      const original = await tokensFor(publicApp);
      const lost = await (await oauth.refreshTokenGrantRequest(as, publicApp.oauthClient, publicApp.auth, String(original.refresh_token), insecure)).json() as { access_token: string };
      const retried = await oauth.processRefreshTokenResponse(as, publicApp.oauthClient, await oauth.refreshTokenGrantRequest(as, publicApp.oauthClient, publicApp.auth, String(original.refresh_token), insecure));
      expect(await userinfoStatus(lost.access_token)).to.equal(401);
      expect(await userinfoStatus(retried.access_token)).to.equal(200);
      expect(await userinfoStatus(original.access_token)).to.equal(401);
    });

    it('serialises concurrent refreshes of one token: every one answers 200 and exactly one successor stays live', async () => {
      const original = await tokensFor(publicApp);
      const responses = await Promise.all(Array.from({ length: 6 }, () => postForm(as.token_endpoint ?? '', { grant_type: 'refresh_token', refresh_token: String(original.refresh_token), client_id: publicApp.client.clientId })));
      expect(responses.map((response) => response.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);
      const pair = await db()('token_pairs').where({ id: (await db()('token_pairs').where({ successor_pair_id: null }).orderBy('id', 'desc').first('parent_pair_id')).parent_pair_id }).first();
      const children = await db()('token_pairs').where({ parent_pair_id: pair.id });
      expect(children).to.have.length(6);
      const liveChildren = children.filter((child: { revoked_at: unknown }) => child.revoked_at === null);
      expect(liveChildren).to.have.length(1);
      expect(liveChildren[0].id).to.equal(pair.successor_pair_id);
    });

    it('copies school_id as it was: a pair issued without one is refreshed without one', async () => {
      const original = await tokensFor(publicApp);
      await db()('token_pairs').where({ id: (await db()('token_pairs').orderBy('id', 'desc').first('id')).id }).update({ school_id: null });
      const refreshed = (await (await oauth.refreshTokenGrantRequest(as, publicApp.oauthClient, publicApp.auth, String(original.refresh_token), insecure)).json()) as Record<string, unknown>;
      expect(refreshed.access_token).to.be.a('string');
      expect(refreshed).not.to.have.any.keys('school_id', 'school_subdomain', 'created_at');
    });

    it('narrows scope on request and refuses widening it', async () => {
      const original = await tokensFor(publicApp, 'openid profile account:read');
      const narrowed = await postForm(as.token_endpoint ?? '', { grant_type: 'refresh_token', refresh_token: String(original.refresh_token), client_id: publicApp.client.clientId, scope: 'openid' });
      expect(narrowed.body.scope).to.equal('openid');
      const widened = await postForm(as.token_endpoint ?? '', { grant_type: 'refresh_token', refresh_token: String(narrowed.body.refresh_token), client_id: publicApp.client.clientId, scope: 'openid account:write' });
      expect(widened.body.error).to.equal('invalid_scope');
    });

    it('refuses a refresh token presented by another client', async () => {
      const original = await tokensFor(publicApp);
      const response = await postForm(as.token_endpoint ?? '', { grant_type: 'refresh_token', refresh_token: String(original.refresh_token), client_id: confidentialApp.client.clientId, client_secret: confidentialApp.secret ?? '' });
      expect(response.body.error).to.equal('invalid_grant');
    });
  });

  describe('userinfo', () => {
    it('answers the claims of the granted scopes and never a resource claim', async () => {
      const full = await tokensFor(publicApp, 'openid profile email account:read');
      const claims = await oauth.processUserInfoResponse(as, publicApp.oauthClient, String(member.id), await oauth.userInfoRequest(as, publicApp.oauthClient, full.access_token, insecure));
      expect(claims).to.deep.equal({ sub: String(member.id), email: member.email, name: member.name, picture: member.avatarUrl, org_id: String(server.siteA.id), roles: ['student'] });
      const narrow = await tokensFor(publicApp, 'openid account:read');
      const response = await fetch(`${server.siteA.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${narrow.access_token}` } });
      expect(await response.json()).to.deep.equal({ sub: String(member.id), org_id: String(server.siteA.id), roles: ['student'] });
    });

    it('refuses a missing, malformed, unknown, expired or other-origin token with 401 invalid_token pointing at the resource metadata', async () => {
      const valid = await tokensFor(publicApp);
      await db()('token_pairs').where({ id: (await db()('token_pairs').orderBy('id', 'desc').first('id')).id }).update({ access_expires_at: new Date(Date.now() - 1000) });
      const cases: Array<[string, Record<string, string>, string]> = [
        ['missing', {}, server.siteA.origin],
        ['malformed', { authorization: 'Token abc' }, server.siteA.origin],
        ['unknown', { authorization: 'Bearer sga_nope' }, server.siteA.origin],
        ['expired', { authorization: `Bearer ${valid.access_token}` }, server.siteA.origin],
        ['other origin', { authorization: `Bearer ${(await tokensFor(publicApp)).access_token}` }, server.siteB.origin],
      ];
      for (const [name, headers, origin] of cases) {
        const response = await fetch(`${origin}/api/oauth/userinfo`, { headers });
        expect(response.status, name).to.equal(401);
        expect(await response.json(), name).to.include({ error: 'invalid_token' });
        expect(response.headers.get('www-authenticate'), name).to.match(new RegExp(`^Bearer .*error="invalid_token".*resource_metadata="${origin}/\\.well-known/oauth-protected-resource"`));
      }
    });

    it('refuses a token without openid with 403 insufficient_scope', async () => {
      const token = await tokensFor(publicApp, 'account:read');
      const response = await fetch(`${server.siteA.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token.access_token}` } });
      expect(response.status).to.equal(403);
      expect(response.headers.get('www-authenticate')).to.contain('error="insufficient_scope"');
    });
  });

  describe('revocation (RFC 7009, spec: Token pair table)', () => {
    it('revokes the whole pair with the refresh token', async () => {
      const tokens = await tokensFor(publicApp);
      await oauth.processRevocationResponse(await oauth.revocationRequest(as, publicApp.oauthClient, publicApp.auth, String(tokens.refresh_token), insecure));
      expect(await userinfoStatus(tokens.access_token)).to.equal(401);
    });

    it('revokes the whole pair with a live access token', async () => {
      const tokens = await tokensFor(publicApp);
      const response = await oauth.revocationRequest(as, publicApp.oauthClient, publicApp.auth, tokens.access_token, insecure);
      expect(response.status).to.equal(200);
      const refresh = await oauth.refreshTokenGrantRequest(as, publicApp.oauthClient, publicApp.auth, String(tokens.refresh_token), insecure);
      expect(await refresh.json()).to.include({ error: 'invalid_grant' });
    });

    it('answers 200 and revokes nothing for an access token past its lifetime; the refresh token still works', async () => {
      const tokens = await tokensFor(publicApp);
      await db()('token_pairs').where({ id: (await db()('token_pairs').orderBy('id', 'desc').first('id')).id }).update({ access_expires_at: new Date(Date.now() - 1000) });
      const response = await oauth.revocationRequest(as, publicApp.oauthClient, publicApp.auth, tokens.access_token, insecure);
      expect(response.status).to.equal(200);
      const refresh = await oauth.refreshTokenGrantRequest(as, publicApp.oauthClient, publicApp.auth, String(tokens.refresh_token), insecure);
      expect(refresh.status).to.equal(200);
    });

    it('refuses a confidential client without client_secret with 403 unauthorized_client', async () => {
      const tokens = await tokensFor(confidentialApp);
      const response = await postForm(as.revocation_endpoint ?? '', { token: String(tokens.refresh_token), client_id: confidentialApp.client.clientId });
      expect(response.status).to.equal(403);
      expect(response.body.error).to.equal('unauthorized_client');
      expect(await userinfoStatus(tokens.access_token)).to.equal(200);
      const revoked = await oauth.revocationRequest(as, confidentialApp.oauthClient, confidentialApp.auth, String(tokens.refresh_token), insecure);
      expect(revoked.status).to.equal(200);
      expect(await userinfoStatus(tokens.access_token)).to.equal(401);
    });

    it('answers 200 for an unknown token and for another client\'s token, revoking nothing', async () => {
      expect((await postForm(as.revocation_endpoint ?? '', { token: 'sgr_unknown', client_id: publicApp.client.clientId })).status).to.equal(200);
      const tokens = await tokensFor(confidentialApp);
      expect((await postForm(as.revocation_endpoint ?? '', { token: tokens.access_token, client_id: publicApp.client.clientId })).status).to.equal(200);
      expect(await userinfoStatus(tokens.access_token)).to.equal(200);
    });
  });

  describe('bad input (RFC 6749 5.2 bodies, no-store)', () => {
    const endpoint = () => String(as.token_endpoint);
    it('refuses a JSON body, an unknown grant, a missing grant_type and duplicated parameters', async () => {
      const json = await fetch(endpoint(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token' }) });
      expect(json.status).to.equal(400);
      expect(await json.json()).to.include({ error: 'invalid_request' });
      expect((await postForm(endpoint(), { grant_type: 'password', client_id: publicApp.client.clientId })).body.error).to.equal('unsupported_grant_type');
      expect((await postForm(endpoint(), { client_id: publicApp.client.clientId })).body.error).to.equal('invalid_request');
      const duplicated = await fetch(endpoint(), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&grant_type=refresh_token' });
      expect(duplicated.status).to.equal(400);
      const body = (await duplicated.json()) as { error: string; error_description: string };
      expect(body.error).to.equal('invalid_request');
      expect(body.error_description).to.contain('grant_type');
      expect(duplicated.headers.get('cache-control')).to.equal('no-store');
    });

    it('refuses an oversized body with 413 and a JSON error', async () => {
      const response = await fetch(endpoint(), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=refresh_token&pad=${'x'.repeat(100 * 1024)}` });
      expect(response.status).to.equal(413);
      expect(await response.json()).to.include({ error: 'request_too_large' });
    });

    it('refuses client_secret_basic', async () => {
      const response = await postForm(endpoint(), { grant_type: 'refresh_token', refresh_token: 'x' }, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` });
      expect(response.status).to.equal(401);
      expect(response.body.error).to.equal('invalid_client');
    });

    it('has no introspection endpoint in variant A', async () => {
      const response = await postForm(`${server.siteA.origin}/api/oauth/introspect`, { token: 'x', client_id: publicApp.client.clientId });
      expect(response.status).to.equal(404);
    });
  });

  async function processed(response: Response, nonce: string) {
    const result = await oauth.processAuthorizationCodeResponse(as, publicApp.oauthClient, response, { expectedNonce: nonce });
    return result as oauth.TokenEndpointResponse & { access_token: string; school_id?: number; school_subdomain?: string; created_at?: number };
  }
});

describeEachDatabase('token endpoint and introspection [variant B]', (scratch) => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  let member: User;
  let app: TestClient;
  before(async () => {
    server = await startTestServer(scratch(), { variant: 'B' });
    as = await discover(server.siteA.origin);
    member = await makeUser(scratch().db, server.siteA, ['student']);
    app = await makeClient(scratch().db, server.siteA, { audience: 'member', confidential: true, scopes: ['openid', 'profile', 'email', 'account:read'] });
  });
  after(async () => server.stop());

  it('answers tokens without the variant A school fields, and userinfo without picture', async () => {
    const grant = await issueCode(scratch().db, server.siteA, app, member, 'openid profile email account:read');
    const response = await exchangeCode(as, app, grant);
    const result = await oauth.processAuthorizationCodeResponse(as, app.oauthClient, response, { expectedNonce: grant.nonce, requireIdToken: true });
    expect(result).not.to.have.any.keys('school_id', 'school_subdomain', 'created_at');
    expect(oauth.getValidatedIdTokenClaims(result)).not.to.have.property('picture');
    const info = (await (await oauth.userInfoRequest(as, app.oauthClient, result.access_token, { [oauth.allowInsecureRequests]: true })).json()) as Record<string, unknown>;
    expect(info).to.deep.equal({ sub: String(member.id), email: member.email, name: member.name, org_id: String(server.siteA.id), roles: ['student'] });
  });

  it('returns the resource binding through introspection (RFC 7662) and inactive for revoked tokens', async () => {
    const grant = await issueCode(scratch().db, server.siteA, app, member, 'openid account:read');
    const result = await oauth.processAuthorizationCodeResponse(as, app.oauthClient, await exchangeCode(as, app, grant), { expectedNonce: grant.nonce });
    const introspection = await oauth.processIntrospectionResponse(as, app.oauthClient, await oauth.introspectionRequest(as, app.oauthClient, app.auth, result.access_token, { [oauth.allowInsecureRequests]: true }));
    expect(introspection).to.include({ active: true, aud: server.siteA.origin, resource: server.siteA.origin, sub: String(member.id), client_id: app.client.clientId, scope: 'openid account:read', iss: server.siteA.origin });
    await oauth.revocationRequest(as, app.oauthClient, app.auth, String(result.refresh_token), { [oauth.allowInsecureRequests]: true });
    const after = await postForm(String(as.introspection_endpoint), { token: result.access_token, client_id: app.client.clientId, client_secret: app.secret ?? '' });
    expect(after.body).to.deep.equal({ active: false });
  });
});
