import { expect } from 'chai';
import * as client from 'openid-client';
import type { Variant } from '../src/config/config.js';
import { authorizeViaPages, authorizeViaPagesExpectingError, CookieJar, createPkcePair } from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { makeClient, makeUser, PASSWORD, REDIRECT_URI } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * The whole flow the spec's Authentication section orders (discover, authorize, use, refresh, revoke), through the
 * real sign-in and consent pages and a strict relying party (openid-client with id_token signature checks).
 */
for (const variant of ['A', 'B'] as const satisfies readonly Variant[]) {
  describeEachDatabase(`the whole OAuth flow through the pages with openid-client [variant ${variant}]`, (scratch) => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(scratch(), { variant });
    });
    after(async () => server.stop());

    it('discovers, signs in, consents, exchanges with PKCE and resource, verifies the id_token, reads userinfo, refreshes and revokes', async () => {
      const site = server.siteA;
      const member = await makeUser(scratch().db, site, ['student'], 'Flow Member');
      const app = await makeClient(scratch().db, site, { audience: 'member', confidential: true, scopes: ['openid', 'profile', 'email', 'account:read'] });
      const config = await client.discovery(new URL(site.origin), app.client.clientId, { redirect_uris: [REDIRECT_URI] }, client.ClientSecretPost(app.secret ?? ''), { execute: [client.allowInsecureRequests] });
      client.enableNonRepudiationChecks(config);
      expect(config.serverMetadata().authorization_response_iss_parameter_supported).to.equal(true);

      const pkce = createPkcePair();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const redirect = await authorizeViaPages({ origin: site.origin, clientId: app.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid profile email account:read', email: member.email, password: PASSWORD, codeChallenge: pkce.challenge, state, nonce });
      expect(redirect.pages).to.deep.equal(['sign-in', 'consent']);
      expect(redirect.iss).to.equal(site.origin);

      const tokens = await client.authorizationCodeGrant(config, redirect.location, { pkceCodeVerifier: pkce.verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true }, { resource: site.origin });
      const claims = tokens.claims();
      expect(claims).to.include({ iss: site.origin, aud: app.client.clientId, sub: String(member.id), nonce, email: member.email });
      expect(Boolean((tokens as unknown as Record<string, unknown>).school_id)).to.equal(variant === 'A');

      const info = await client.fetchUserInfo(config, tokens.access_token, String(member.id));
      expect(info).to.include({ sub: String(member.id), email: member.email, name: member.name, org_id: String(site.id) });
      expect(info).not.to.have.property('resource');
      expect('picture' in info).to.equal(variant === 'A');

      const refreshed = await client.refreshTokenGrant(config, String(tokens.refresh_token));
      expect(refreshed.id_token).to.equal(undefined);
      await client.tokenRevocation(config, String(refreshed.refresh_token));
      const afterRevoke = await fetch(`${site.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
      expect(afterRevoke.status).to.equal(401);
    });

    it('shows the consent page again on a second authorization with a live session (Authentication 13)', async () => {
      const site = server.siteA;
      const member = await makeUser(scratch().db, site, ['student'], 'Second Member');
      const app = await makeClient(scratch().db, site, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'] });
      const jar = new CookieJar();
      const options = { origin: site.origin, clientId: app.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid account:read', email: member.email, password: PASSWORD, jar };
      const first = await authorizeViaPages({ ...options, codeChallenge: createPkcePair().challenge });
      const second = await authorizeViaPages({ ...options, codeChallenge: createPkcePair().challenge });
      expect(first.pages).to.deep.equal(['sign-in', 'consent']);
      expect(second.pages).to.deep.equal(['consent']);
      expect(second.code).to.match(/^sgc_/).and.not.equal(first.code);
    });

    it('refuses account:read for an operator client with invalid_scope on the redirect (Authentication 6)', async () => {
      const site = server.siteA;
      const operator = await makeUser(scratch().db, site, ['operator'], 'Operator Person');
      const tool = await makeClient(scratch().db, site, { audience: 'operator', confidential: false, scopes: ['openid', 'school:read'] });
      const refused = await authorizeViaPagesExpectingError({ origin: site.origin, clientId: tool.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid account:read', email: operator.email, password: PASSWORD, codeChallenge: createPkcePair().challenge, state: 'st' });
      expect(refused).to.include({ error: 'invalid_scope', state: 'st', iss: site.origin });
    });
  });
}
