import { createHash, randomUUID, type webcrypto } from 'node:crypto';
import { expect } from 'chai';
import { calculateJwkThumbprint, exportJWK, SignJWT, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Variant } from '../src/config/config.js';
import { createLogger } from '../src/shared/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { authorizeViaPages, createPkcePair } from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { discover, issueCode, makeClient, makeUser, PASSWORD, postForm, REDIRECT_URI, type CodeGrant, type TestClient } from './support/oauth-fixtures.js';
import { startTestServer, testConfig, type TestServer } from './support/server.js';

/**
 * DPoP (RFC 9449) with oauth4webapi's own DPoP support, unmodified: token requests bind the pair to the proof's key
 * (token_type DPoP), every protected resource (userinfo, member GraphQL, /mcp, the admin API) verifies proofs, and
 * each refusal below leaves the token working with a correct proof.
 */

const insecure = { [oauth.allowInsecureRequests]: true } as const;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

async function newKeyPair(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
}

async function thumbprintOf(keys: CryptoKeyPair): Promise<string> {
  return calculateJwkThumbprint((await exportJWK(keys.publicKey)) as JWK);
}

/** A hand-made proof, for the requests oauth4webapi would never send. */
async function handProof(keys: CryptoKeyPair, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const jwk = await exportJWK(keys.publicKey);
  return new SignJWT({ jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk, ...header }).sign(keys.privateKey);
}

function ath(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

function callbackOf(as: oauth.AuthorizationServer, app: TestClient, grant: CodeGrant): URLSearchParams {
  const callback = new URL(REDIRECT_URI);
  callback.searchParams.set('code', grant.code);
  callback.searchParams.set('state', grant.state);
  callback.searchParams.set('iss', as.issuer);
  return oauth.validateAuthResponse(as, app.oauthClient, callback, grant.state);
}

interface Tokens {
  access: string;
  refresh: string;
  type: string;
}

async function exchange(as: oauth.AuthorizationServer, app: TestClient, grant: CodeGrant, DPoP?: oauth.DPoPHandle, openid = true): Promise<Tokens> {
  const expected = openid ? { expectedNonce: grant.nonce } : {};
  const request = () => oauth.authorizationCodeGrantRequest(as, app.oauthClient, app.auth, callbackOf(as, app, grant), REDIRECT_URI, grant.verifier, { DPoP, additionalParameters: { resource: as.issuer }, ...insecure });
  let response = await request();
  let result;
  try {
    result = await oauth.processAuthorizationCodeResponse(as, app.oauthClient, response, expected);
  } catch (error) {
    // oauth4webapi keeps the nonce; the client retries once (RFC 9449 8).
    if (!oauth.isDPoPNonceError(error)) throw error;
    response = await request();
    result = await oauth.processAuthorizationCodeResponse(as, app.oauthClient, response, expected);
  }
  return { access: result.access_token, refresh: String(result.refresh_token), type: result.token_type };
}

async function refresh(as: oauth.AuthorizationServer, app: TestClient, refreshToken: string, DPoP?: oauth.DPoPHandle): Promise<Tokens> {
  const response = await oauth.refreshTokenGrantRequest(as, app.oauthClient, app.auth, refreshToken, { DPoP, ...insecure });
  const result = await oauth.processRefreshTokenResponse(as, app.oauthClient, response);
  return { access: result.access_token, refresh: String(result.refresh_token), type: result.token_type };
}

/** A protected resource through oauth4webapi: status, the challenge (oauth4webapi throws on one) and the body. */
async function resource(token: string, method: string, url: string, DPoP?: oauth.DPoPHandle, body?: string): Promise<{ status: number; challenge: string | null; text: string }> {
  const headers = new Headers(body === undefined ? {} : { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' });
  try {
    const response = await oauth.protectedResourceRequest(token, method, new URL(url), headers, body ?? null, { DPoP, ...insecure });
    return { status: response.status, challenge: response.headers.get('www-authenticate'), text: await response.text() };
  } catch (error) {
    if (error instanceof oauth.WWWAuthenticateChallengeError) return { status: error.response.status, challenge: error.response.headers.get('www-authenticate'), text: await error.response.text() };
    throw error;
  }
}

/** A raw request with hand-made headers. */
async function raw(url: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; challenge: string | null; nonce: string | null; body: string }> {
  const response = await fetch(url, { method, headers });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), nonce: response.headers.get('dpop-nonce'), body: await response.text() };
}

function graphqlPath(variant: Variant): string {
  return variant === 'A' ? '/member/graphql' : '/account/graphql';
}

for (const variant of ['A', 'B'] as const satisfies readonly Variant[]) {
  describeEachDatabase(`DPoP with oauth4webapi [variant ${variant}]`, (scratch) => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(scratch(), { variant });
    });
    after(async () => server.stop());

    it('advertises DPoP in the authorization server and protected resource metadata', async () => {
      const site = server.siteA;
      const as = await discover(site.origin);
      expect(as.dpop_signing_alg_values_supported).to.deep.equal(['ES256', 'RS256', 'EdDSA', 'Ed25519']);
      const resourceUrl = new URL(site.origin);
      const prm = await oauth.processResourceDiscoveryResponse(resourceUrl, await oauth.resourceDiscoveryRequest(resourceUrl, insecure));
      expect(prm.dpop_signing_alg_values_supported).to.deep.equal(['ES256', 'RS256', 'EdDSA', 'Ed25519']);
      expect(prm.dpop_bound_access_tokens_required).to.equal(false);
    });

    it('binds the pair to the key: token_type DPoP, userinfo, member GraphQL, /mcp and refresh with proofs; the bound token as Bearer is refused', async () => {
      const site = server.siteA;
      const member = await makeUser(scratch().db, site, ['student'], 'Dpop Member');
      const app = await makeClient(scratch().db, site, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'email', 'account:read'] });
      const as = await discover(site.origin);
      const keys = await newKeyPair();
      const DPoP = oauth.DPoP(app.oauthClient, keys);
      const tokens = await exchange(as, app, await issueCode(scratch().db, site, app, member, 'openid profile email account:read'), DPoP);
      expect(tokens.type).to.equal('dpop');
      const row = await scratch().db('token_pairs').where({ client_ref: app.client.ref }).first('dpop_jkt');
      expect(row.dpop_jkt).to.equal(await thumbprintOf(keys));

      const info = await oauth.processUserInfoResponse(as, app.oauthClient, String(member.id), await oauth.userInfoRequest(as, app.oauthClient, tokens.access, { DPoP, ...insecure }));
      expect(info.sub).to.equal(String(member.id));

      const graphql = await resource(tokens.access, 'POST', `${site.origin}${graphqlPath(variant)}`, DPoP, JSON.stringify({ query: '{ __typename }' }));
      expect(graphql.status, graphql.text).to.equal(200);
      const mcp = await resource(tokens.access, 'POST', `${site.origin}/mcp`, DPoP, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      expect(mcp.status, mcp.text).to.equal(200);

      const asBearer = await raw(`${site.origin}/api/oauth/userinfo`, { authorization: `Bearer ${tokens.access}` });
      expect(asBearer.status).to.equal(401);
      expect(asBearer.challenge).to.match(/^DPoP /).and.include('error="invalid_token"').and.include('algs="ES256 RS256 EdDSA Ed25519"');

      const refreshed = await refresh(as, app, tokens.refresh, DPoP);
      expect(refreshed.type).to.equal('dpop');
      expect((await resource(refreshed.access, 'GET', `${site.origin}/api/oauth/userinfo`, DPoP)).status).to.equal(200);
    });

    it('lets an operator call the admin API with a DPoP-bound token', async () => {
      const site = server.siteA;
      const operator = await makeUser(scratch().db, site, ['operator'], 'Dpop Operator');
      const app = await makeClient(scratch().db, site, { audience: 'operator', confidential: false, scopes: ['school:read'] });
      const as = await discover(site.origin);
      const DPoP = oauth.DPoP(app.oauthClient, await newKeyPair());
      const tokens = await exchange(as, app, await issueCode(scratch().db, site, app, operator, 'school:read'), DPoP, false);
      expect((await resource(tokens.access, 'GET', `${site.origin}/api/admin/v1/school`, DPoP)).status).to.equal(200);
      const asBearer = await raw(`${site.origin}/api/admin/v1/school`, { authorization: `Bearer ${tokens.access}` });
      expect(asBearer.status).to.equal(401);
      expect(asBearer.challenge).to.match(/^DPoP /);
    });

    if (variant === 'B') {
      it('reports cnf.jkt and token_type DPoP at introspection (RFC 9449 6.2)', async () => {
        const site = server.siteA;
        const member = await makeUser(scratch().db, site, ['student'], 'Introspected Member');
        const app = await makeClient(scratch().db, site, { audience: 'member', confidential: true, scopes: ['account:read'] });
        const as = await discover(site.origin);
        const keys = await newKeyPair();
        const tokens = await exchange(as, app, await issueCode(scratch().db, site, app, member, 'account:read'), oauth.DPoP(app.oauthClient, keys), false);
        const answer = await postForm(`${site.origin}/api/oauth/introspect`, { token: tokens.access, client_id: app.client.clientId, client_secret: app.secret ?? '' });
        expect(answer.body).to.include({ active: true, token_type: 'DPoP' });
        expect(answer.body.cnf).to.deep.equal({ jkt: await thumbprintOf(keys) });
      });
    }
  });
}

describeEachDatabase('DPoP refusals (RFC 9449 4.3, 5, 7)', (scratch) => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  before(async () => {
    server = await startTestServer(scratch(), { variant: 'A' });
    as = await discover(server.siteA.origin);
  });
  after(async () => server.stop());

  /** A public member client with a bound pair and its key. */
  async function boundPair(scopes = 'openid account:read'): Promise<{ app: TestClient; keys: CryptoKeyPair; DPoP: oauth.DPoPHandle; tokens: Tokens }> {
    const site = server.siteA;
    const member = await makeUser(scratch().db, site, ['student'], 'Refused Member');
    const app = await makeClient(scratch().db, site, { audience: 'member', confidential: false, scopes: scopes.split(' ') });
    const keys = await newKeyPair();
    const DPoP = oauth.DPoP(app.oauthClient, keys);
    const tokens = await exchange(as, app, await issueCode(scratch().db, site, app, member, scopes), DPoP);
    return { app, keys, DPoP, tokens };
  }

  const userinfo = () => `${server.siteA.origin}/api/oauth/userinfo`;

  it('refuses wrong htm, wrong htu, wrong ath, a stale iat, a replayed jti, another key, two proofs and alg none; the token still works after each', async () => {
    const { keys, DPoP, tokens } = await boundPair();
    const good = { htm: 'GET', htu: userinfo(), ath: ath(tokens.access) };
    const other = await newKeyPair();
    const replayed = await handProof(keys, good);
    const first = await raw(userinfo(), { authorization: `DPoP ${tokens.access}`, dpop: replayed });
    expect(first.status, first.body).to.equal(200);
    const cases: Array<[string, Record<string, string>]> = [
      ['wrong htm', { dpop: await handProof(keys, { ...good, htm: 'POST' }) }],
      ['wrong htu', { dpop: await handProof(keys, { ...good, htu: `${server.siteA.origin}/api/oauth/token` }) }],
      ['wrong ath', { dpop: await handProof(keys, { ...good, ath: ath('another token') }) }],
      ['stale iat', { dpop: await handProof(keys, { ...good, iat: Math.floor(Date.now() / 1000) - 3600 }) }],
      ['future iat', { dpop: await handProof(keys, { ...good, iat: Math.floor(Date.now() / 1000) + 3600 }) }],
      ['replayed jti', { dpop: replayed }],
      ['another key', { dpop: await handProof(other, good) }],
      ['wrong typ', { dpop: await handProof(keys, good, { typ: 'JWT' }) }],
      ['alg none', { dpop: `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })).toString('base64url')}.${Buffer.from(JSON.stringify({ ...good, jti: 'x', iat: Math.floor(Date.now() / 1000) })).toString('base64url')}.` }],
      ['no proof', {}],
    ];
    for (const [name, headers] of cases) {
      const answer = await raw(userinfo(), { authorization: `DPoP ${tokens.access}`, ...headers });
      expect(answer.status, name).to.equal(401);
      expect(answer.challenge, name).to.match(/^DPoP /).and.include('error="invalid_dpop_proof"');
    }
    // Two DPoP headers (fetch joins repeated headers, so they go as a raw list through undici's array form).
    const twice = await fetch(userinfo(), { headers: [['authorization', `DPoP ${tokens.access}`], ['dpop', await handProof(keys, good)], ['dpop', await handProof(keys, good)]] });
    expect(twice.status).to.equal(401);
    expect(await resource(tokens.access, 'GET', userinfo(), DPoP)).to.include({ status: 200 });
  });

  it('refuses an unbound token sent with the DPoP scheme, and serves it as Bearer', async () => {
    const site = server.siteA;
    const member = await makeUser(scratch().db, site, ['student'], 'Bearer Member');
    const app = await makeClient(scratch().db, site, { audience: 'member', confidential: false, scopes: ['openid'] });
    const tokens = await exchange(as, app, await issueCode(scratch().db, site, app, member, 'openid'));
    expect(tokens.type).to.equal('bearer');
    const keys = await newKeyPair();
    const asDpop = await raw(userinfo(), { authorization: `DPoP ${tokens.access}`, dpop: await handProof(keys, { htm: 'GET', htu: userinfo(), ath: ath(tokens.access) }) });
    expect(asDpop.status).to.equal(401);
    expect(asDpop.challenge).to.match(/^DPoP /).and.include('error="invalid_token"');
    expect((await raw(userinfo(), { authorization: `Bearer ${tokens.access}` })).status).to.equal(200);
  });

  it('refuses a refresh of a public client bound family without a proof or with another key; the right key still refreshes', async () => {
    const { app, DPoP, tokens } = await boundPair();
    const without = await postForm(`${as.issuer}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh, client_id: app.client.clientId });
    expect(without.status).to.equal(400);
    expect(without.body.error).to.equal('invalid_dpop_proof');
    const otherKey = oauth.DPoP(app.oauthClient, await newKeyPair());
    const response = await oauth.refreshTokenGrantRequest(as, app.oauthClient, app.auth, tokens.refresh, { DPoP: otherKey, ...insecure });
    expect(response.status).to.equal(400);
    expect(((await response.json()) as { error: string }).error).to.equal('invalid_grant');
    const refreshed = await refresh(as, app, tokens.refresh, DPoP);
    expect(refreshed.type).to.equal('dpop');
  });

  it('binds a confidential client only its access token: its refresh works without a proof and yields a bearer token', async () => {
    const site = server.siteA;
    const member = await makeUser(scratch().db, site, ['student'], 'Confidential Member');
    const app = await makeClient(scratch().db, site, { audience: 'member', confidential: true, scopes: ['openid'] });
    const tokens = await exchange(as, app, await issueCode(scratch().db, site, app, member, 'openid'), oauth.DPoP(app.oauthClient, await newKeyPair()));
    expect(tokens.type).to.equal('dpop');
    const refreshed = await refresh(as, app, tokens.refresh);
    expect(refreshed.type).to.equal('bearer');
  });

  it('requires a proof from a client registered with dpop_bound_access_tokens', async () => {
    const site = server.siteA;
    const member = await makeUser(scratch().db, site, ['student'], 'Required Member');
    const app = await makeClient(scratch().db, site, { audience: 'member', confidential: false, scopes: ['openid'] });
    await scratch().db('oauth_clients').where({ id: app.client.ref }).update({ dpop_bound_access_tokens: true });
    const grant = await issueCode(scratch().db, site, app, member, 'openid');
    const response = await oauth.authorizationCodeGrantRequest(as, app.oauthClient, app.auth, callbackOf(as, app, grant), REDIRECT_URI, grant.verifier, { additionalParameters: { resource: as.issuer }, ...insecure });
    expect(response.status).to.equal(400);
    expect(((await response.json()) as { error: string }).error).to.equal('invalid_dpop_proof');
    // Nothing was spent: the same code works with a proof.
    expect((await exchange(as, app, grant, oauth.DPoP(app.oauthClient, await newKeyPair()))).type).to.equal('dpop');
  });

  it('refuses a token request proof with the wrong htu or a replayed jti', async () => {
    const site = server.siteA;
    const member = await makeUser(scratch().db, site, ['student'], 'Token Proof Member');
    const app = await makeClient(scratch().db, site, { audience: 'member', confidential: false, scopes: ['openid'] });
    const keys = await newKeyPair();
    const grant = await issueCode(scratch().db, site, app, member, 'openid');
    const form = { grant_type: 'authorization_code', code: grant.code, redirect_uri: REDIRECT_URI, code_verifier: grant.verifier, resource: site.origin, client_id: app.client.clientId };
    const tokenUrl = `${site.origin}/api/oauth/token`;
    const wrongHtu = await postForm(tokenUrl, form, { dpop: await handProof(keys, { htm: 'POST', htu: `${site.origin}/api/oauth/userinfo` }) });
    expect(wrongHtu.status).to.equal(400);
    expect(wrongHtu.body.error).to.equal('invalid_dpop_proof');
    const proof = await handProof(keys, { htm: 'POST', htu: tokenUrl });
    const first = await postForm(tokenUrl, form, { dpop: proof });
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body.token_type).to.equal('DPoP');
    const replay = await postForm(tokenUrl, { grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token), client_id: app.client.clientId }, { dpop: proof });
    expect(replay.status).to.equal(400);
    expect(replay.body.error).to.equal('invalid_dpop_proof');
  });

  it('binds the code to dpop_jkt sent at the authorization endpoint (RFC 9449 10)', async () => {
    const site = server.siteA;
    const member = await makeUser(scratch().db, site, ['student'], 'Jkt Member');
    const app = await makeClient(scratch().db, site, { audience: 'member', confidential: false, scopes: ['openid'] });
    const keys = await newKeyPair();
    const DPoP = oauth.DPoP(app.oauthClient, keys);
    const pkce = createPkcePair();
    const redirect = await authorizeViaPages({ origin: site.origin, clientId: app.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid', email: member.email, password: PASSWORD, codeChallenge: pkce.challenge, state: 's', extraParameters: { dpop_jkt: await DPoP.calculateThumbprint() } });
    const form = { grant_type: 'authorization_code', code: redirect.code, redirect_uri: REDIRECT_URI, code_verifier: pkce.verifier, resource: site.origin, client_id: app.client.clientId };
    const tokenUrl = `${site.origin}/api/oauth/token`;
    const otherKey = await postForm(tokenUrl, form, { dpop: await handProof(await newKeyPair(), { htm: 'POST', htu: tokenUrl }) });
    expect(otherKey.status).to.equal(400);
    expect(otherKey.body.error).to.equal('invalid_grant');
    const right = await postForm(tokenUrl, form, { dpop: await handProof(keys, { htm: 'POST', htu: tokenUrl }) });
    expect(right.status, JSON.stringify(right.body)).to.equal(200);
    expect(right.body.token_type).to.equal('DPoP');
  });

  it('refuses a replayed jti at a second instance over the same database', async () => {
    const { keys, tokens } = await boundPair();
    const second = await startServer(testConfig({ variant: 'A', trustProxy: true, database: scratch().config }), { db: scratch().db, logger: createLogger('silent') });
    try {
      const proof = await handProof(keys, { htm: 'GET', htu: userinfo(), ath: ath(tokens.access) });
      expect((await raw(userinfo(), { authorization: `DPoP ${tokens.access}`, dpop: proof })).status).to.equal(200);
      // The second instance serves the same site behind a proxy (X-Forwarded-Host).
      const port = new URL(second.listeningOn).port;
      const atSecond = await fetch(`http://127.0.0.1:${port}/api/oauth/userinfo`, { headers: { 'x-forwarded-host': new URL(server.siteA.origin).host, 'x-forwarded-proto': 'http', authorization: `DPoP ${tokens.access}`, dpop: proof } });
      expect(atSecond.status).to.equal(401);
      expect(atSecond.headers.get('www-authenticate')).to.include('error="invalid_dpop_proof"');
    } finally {
      await second.stop(1000);
    }
  });
});

describeEachDatabase('DPoP server nonces (RFC 9449 8, 9)', (scratch) => {
  let running: RunningServer;
  let server: TestServer;
  before(async () => {
    // A server that requires nonces, beside the ordinary one (which only provides the sites and the database).
    server = await startTestServer(scratch(), { variant: 'A' });
    running = await startServer(testConfig({ variant: 'A', trustProxy: true, database: scratch().config, dpopNonceRequired: true }), { db: scratch().db, logger: createLogger('silent') });
  });
  after(async () => {
    await running.stop(1000);
    await server.stop();
  });

  it('challenges with use_dpop_nonce at the token endpoint and at resources; a proof with the issued nonce is accepted by either instance', async () => {
    // The nonce-requiring instance serves the same sites behind a proxy (X-Forwarded-Host): send requests there.
    const port = new URL(running.listeningOn).port;
    const site = server.siteA;
    const member = await makeUser(scratch().db, site, ['student'], 'Nonce Member');
    const app = await makeClient(scratch().db, site, { audience: 'member', confidential: false, scopes: ['openid'] });
    const keys = await newKeyPair();
    const grant = await issueCode(scratch().db, site, app, member, 'openid');
    const tokenUrl = `${site.origin}/api/oauth/token`;
    const form = { grant_type: 'authorization_code', code: grant.code, redirect_uri: REDIRECT_URI, code_verifier: grant.verifier, resource: site.origin, client_id: app.client.clientId };
    const viaNonceServer = (path: string) => `http://127.0.0.1:${port}${path}`;
    const hostHeader = { 'x-forwarded-host': new URL(site.origin).host, 'x-forwarded-proto': 'http' };
    const challenged = await postForm(viaNonceServer('/api/oauth/token'), form, { ...hostHeader, dpop: await handProof(keys, { htm: 'POST', htu: tokenUrl }) });
    expect(challenged.status).to.equal(400);
    expect(challenged.body.error).to.equal('use_dpop_nonce');
    const nonce = challenged.headers.get('dpop-nonce');
    expect(nonce).to.be.a('string');
    const retried = await postForm(viaNonceServer('/api/oauth/token'), form, { ...hostHeader, dpop: await handProof(keys, { htm: 'POST', htu: tokenUrl, nonce }) });
    expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
    const access = String(retried.body.access_token);

    const url = `${site.origin}/api/oauth/userinfo`;
    const noNonce = await fetch(viaNonceServer('/api/oauth/userinfo'), { headers: { ...hostHeader, authorization: `DPoP ${access}`, dpop: await handProof(keys, { htm: 'GET', htu: url, ath: ath(access) }) } });
    expect(noNonce.status).to.equal(401);
    expect(noNonce.headers.get('www-authenticate')).to.match(/^DPoP /).and.include('error="use_dpop_nonce"');
    const resourceNonce = noNonce.headers.get('dpop-nonce') ?? '';
    const withNonce = await fetch(viaNonceServer('/api/oauth/userinfo'), { headers: { ...hostHeader, authorization: `DPoP ${access}`, dpop: await handProof(keys, { htm: 'GET', htu: url, ath: ath(access), nonce: resourceNonce }) } });
    expect(withNonce.status).to.equal(200);
    const staleNonce = await fetch(viaNonceServer('/api/oauth/userinfo'), { headers: { ...hostHeader, authorization: `DPoP ${access}`, dpop: await handProof(keys, { htm: 'GET', htu: url, ath: ath(access), nonce: 'not-a-nonce-we-issued' }) } });
    expect(staleNonce.status).to.equal(401);
    // Nonces are stateless: the other instance accepts the one this instance issued.
    const elsewhere = await fetch(url, { headers: { authorization: `DPoP ${access}`, dpop: await handProof(keys, { htm: 'GET', htu: url, ath: ath(access), nonce: resourceNonce }) } });
    expect(elsewhere.status).to.equal(200);
  });
});
