import { expect } from 'chai';
import { authorizeViaPagesExpectingError, browserRequest, buildAuthorizationUrl, CookieJar, findForm, pageMessage, submitForm, type AuthorizeViaPagesOptions } from './support/authorize-flow.js';
import { expectPage, expectPageSecurityHeaders, expectRedirect, MEMBER_REDIRECT, OPERATOR_REDIRECT, useAuthorizePages } from './support/authorize-pages.js';
import { describeEachDatabase } from './support/databases.js';

/**
 * GET /oauth/authorize through the pages, as a browser: requests the authorization endpoint refuses: with an error
 * page and no redirect when the client or redirect_uri cannot be trusted (RFC 6749 4.1.2.1), otherwise back to the
 * client with error, error_description, state and iss.
 */
describeEachDatabase('GET /oauth/authorize with sign-in and consent pages', (scratch) => {
  const flow = useAuthorizePages(scratch);

  describe('requests that are shown an error page and never redirected (RFC 6749 4.1.2.1)', () => {
    const cases: Array<[string, (o: AuthorizeViaPagesOptions) => Partial<AuthorizeViaPagesOptions>]> = [
      ['an unknown client_id', () => ({ clientId: 'sg_no_such_client' })],
      ['no client_id', () => ({ extraParameters: { client_id: null } })],
      ['an unregistered redirect_uri', () => ({ redirectUri: 'https://attacker.example/callback' })],
      ['a redirect_uri that differs by a trailing slash', () => ({ redirectUri: `${MEMBER_REDIRECT}/` })],
      ['a redirect_uri that differs in case', () => ({ redirectUri: MEMBER_REDIRECT.replace('callback', 'Callback') })],
      ['no redirect_uri when several are registered', () => ({ extraParameters: { redirect_uri: null } })],
      ["another site's client", () => ({ clientId: flow.memberClientB.clientId })],
    ];
    for (const [title, change] of cases) {
      it(`${title}: 400 page, no Location`, async () => {
        const base = flow.options();
        const answer = await browserRequest(new CookieJar(), buildAuthorizationUrl({ ...base, ...change(base) }));
        expectPage(answer, 400, 'error');
        expectPageSecurityHeaders(answer.response);
        expect(answer.response.headers.get('set-cookie')).to.equal(null);
      });
    }

    it('escapes what it echoes', async () => {
      const answer = await browserRequest(new CookieJar(), buildAuthorizationUrl(flow.options({ clientId: '<script>alert(1)</script>' })));
      expectPage(answer, 400, 'error');
      expect(answer.html).not.to.contain('<script>');
      expect(answer.html).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    });

    it('a duplicated client_id or redirect_uri', async () => {
      for (const name of ['client_id', 'redirect_uri']) {
        const url = buildAuthorizationUrl(flow.options());
        url.search += `&${name}=${encodeURIComponent(url.searchParams.get(name) ?? '')}`;
        const answer = await browserRequest(new CookieJar(), url);
        expectPage(answer, 400, 'error');
        expect(pageMessage(answer.html)).to.contain(`${name} more than once`);
      }
    });
  });

  describe('errors sent back to the client with error, error_description, state and iss', () => {
    const cases: Array<[string, Partial<AuthorizeViaPagesOptions>, string]> = [
      ['code_challenge_method=plain', { extraParameters: { code_challenge_method: 'plain' } }, 'invalid_request'],
      ['no code_challenge_method (means plain)', { extraParameters: { code_challenge_method: null } }, 'invalid_request'],
      ['no code_challenge', { extraParameters: { code_challenge: null } }, 'invalid_request'],
      ['a code_challenge of 42 characters', { codeChallenge: 'a'.repeat(42) }, 'invalid_request'],
      ['a code_challenge with a bad character', { codeChallenge: `${'a'.repeat(42)}+` }, 'invalid_request'],
      ['no resource', { extraParameters: { resource: null } }, 'invalid_target'],
      ["another site's origin as resource", { resource: 'http://127.0.0.1:1' }, 'invalid_target'],
      ['a resource with a path', { resource: 'RESOURCE_WITH_PATH' }, 'invalid_target'],
      ['response_type=token', { extraParameters: { response_type: 'token' } }, 'unsupported_response_type'],
      ['no response_type', { extraParameters: { response_type: null } }, 'invalid_request'],
      ['an unknown scope', { scope: 'openid pizza:eat' }, 'invalid_scope'],
      ['a scope the member client was not given', { scope: 'openid courses:read' }, 'invalid_scope'],
      ['response_mode=fragment', { extraParameters: { response_mode: 'fragment' } }, 'invalid_request'],
      ['prompt=none (consent is always shown)', { extraParameters: { prompt: 'none' } }, 'consent_required'],
      ['a request object', { extraParameters: { request: 'eyJhbGciOiJub25lIn0.e30.' } }, 'request_not_supported'],
      ['a nonce over 255 characters', { nonce: 'n'.repeat(256) }, 'invalid_request'],
    ];
    for (const [title, overrides, error] of cases) {
      it(`${title} → ${error}`, async () => {
        const resource = overrides.resource === 'RESOURCE_WITH_PATH' ? `${flow.siteA.origin}/member/graphql` : overrides.resource;
        const url = buildAuthorizationUrl(flow.options({ ...overrides, ...(resource ? { resource } : {}) }));
        const answer = await browserRequest(new CookieJar(), url);
        expectRedirect(answer);
        expect(answer.status).to.equal(302);
        expect(`${answer.location.origin}${answer.location.pathname}`).to.equal(MEMBER_REDIRECT);
        expect(answer.location.searchParams.get('error')).to.equal(error);
        expect(answer.location.searchParams.get('error_description')).to.be.a('string').and.not.equal('');
        expect(answer.location.searchParams.get('state')).to.equal('state-123');
        expect(answer.location.searchParams.get('iss')).to.equal(flow.siteA.origin);
        expect(answer.location.searchParams.get('code')).to.equal(null);
        expectPageSecurityHeaders(answer.response);
      });
    }

    it('an operator client asking for account:read → invalid_scope (spec, Authentication 6)', async () => {
      const answer = await browserRequest(new CookieJar(), buildAuthorizationUrl(flow.options({ clientId: flow.operatorClient.clientId, redirectUri: OPERATOR_REDIRECT, scope: 'openid account:read' })));
      expectRedirect(answer);
      expect(answer.location.origin).to.equal('https://ops.example.com');
      expect(answer.location.searchParams.get('error')).to.equal('invalid_scope');
      expect(answer.location.searchParams.get('error_description')).to.contain('account:read');
    });

    it('a duplicated parameter other than client_id and redirect_uri → invalid_request', async () => {
      const url = buildAuthorizationUrl(flow.options());
      url.search += '&scope=openid';
      const answer = await browserRequest(new CookieJar(), url);
      expectRedirect(answer);
      expect(answer.location.searchParams.get('error')).to.equal('invalid_request');
      expect(answer.location.searchParams.get('error_description')).to.contain('scope');
    });

    it('leaves state out when none was sent', async () => {
      const answer = await browserRequest(new CookieJar(), buildAuthorizationUrl(flow.options({ state: undefined, extraParameters: { code_challenge_method: 'plain' } })));
      expectRedirect(answer);
      expect(answer.location.searchParams.has('state')).to.equal(false);
      expect(answer.location.searchParams.get('iss')).to.equal(flow.siteA.origin);
    });

    it('a Deny on the consent page → access_denied', async () => {
      const result = await authorizeViaPagesExpectingError(flow.options({ decision: 'deny' }));
      expect(result.error).to.equal('access_denied');
      expect(result.state).to.equal('state-123');
      expect(result.iss).to.equal(flow.siteA.origin);
      expect(result.pages).to.deep.equal(['sign-in', 'consent']);
    });

    it('Cancel on the sign-in page → access_denied', async () => {
      const jar = new CookieJar();
      const page = await flow.openSignIn(jar);
      const form = findForm(page.html, '/oauth/authorize/cancel');
      if (!form) expect.fail('no cancel form');
      const answer = await submitForm(jar, page.url, form, {});
      expectRedirect(answer);
      expect(answer.status).to.equal(303);
      expect(answer.location.searchParams.get('error')).to.equal('access_denied');
    });
  });
});
