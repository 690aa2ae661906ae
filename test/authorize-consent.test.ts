import { expect } from 'chai';
import { findLiveSession } from '../src/accounts/sessions.js';
import { requireDate } from '../src/db/connection.js';
import { SCOPE_WORDING } from '../src/oauth/authorize/scope-wording.js';
import { sha256Hex } from '../src/shared/random.js';
import { authorizeViaPages, CookieJar, findForm, submitForm } from './support/authorize-flow.js';
import { expectRedirect, MEMBER_REDIRECT, MEMBER_REDIRECT_WITH_QUERY, OPERATOR_REDIRECT, useAuthorizePages } from './support/authorize-pages.js';
import { describeEachDatabase } from './support/databases.js';

/**
 * GET /oauth/authorize through the pages, as a browser: the happy path: sign in, consent, and back to the client with
 * a code (RFC 6749 4.1.2, RFC 9207), what the code records, and what the consent page shows.
 */
describeEachDatabase('GET /oauth/authorize with sign-in and consent pages', (scratch) => {
  const flow = useAuthorizePages(scratch);

  describe('the happy path', () => {
    it('signs in, approves, and redirects to redirect_uri with code, state and iss (RFC 9207)', async () => {
      const result = await authorizeViaPages(flow.options());
      expect(result.code).to.match(/^sgc_[A-Za-z0-9_-]{43}$/);
      expect(result.state).to.equal('state-123');
      expect(result.iss).to.equal(flow.siteA.origin);
      expect(`${result.location.origin}${result.location.pathname}`).to.equal(MEMBER_REDIRECT);
      expect([...result.location.searchParams.keys()].sort()).to.deep.equal(['code', 'iss', 'state']);
      expect(result.pages).to.deep.equal(['sign-in', 'consent']);
    });

    it('records the code hashed, with what the token endpoint checks (client, redirect_uri, scopes, resource, PKCE, nonce, auth_time)', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      const result = await authorizeViaPages(flow.options({ jar, scope: 'openid account:read', nonce: 'n-0S6_WzA2Mj' }));
      const row = (await db('authorization_codes').where({ code_hash: sha256Hex(result.code) }).first()) as Record<string, unknown> | undefined;
      expect(row, 'code row by hash').to.not.equal(undefined);
      expect(JSON.stringify(await db('authorization_codes').select())).not.to.contain(result.code);
      expect(row).to.include({ site_id: flow.siteA.id, client_ref: flow.memberClient.ref, user_id: flow.student.id, redirect_uri: MEMBER_REDIRECT, scope: 'openid account:read' });
      expect(row).to.include({ resource: flow.siteA.origin, code_challenge: flow.pkce.challenge, code_challenge_method: 'S256', nonce: 'n-0S6_WzA2Mj' });
      const token = jar.get(flow.siteA.origin, 'sg_session') ?? '';
      const session = await findLiveSession(db, flow.siteA.id, token);
      expect(session?.authenticatedAt?.getTime()).to.equal(requireDate(row?.auth_time).getTime());
    });

    it('uses the only registered redirect_uri when none is given', async () => {
      const result = await authorizeViaPages(flow.options({ clientId: flow.singleRedirectClient.clientId, scope: 'openid', extraParameters: { redirect_uri: null } }));
      expect(`${result.location.origin}${result.location.pathname}`).to.equal(MEMBER_REDIRECT);
      const parameters = JSON.parse(String(((await scratch().db('authorization_requests').orderBy('id', 'desc').first()) as { parameters: string }).parameters)) as { redirectUriGiven: boolean };
      expect(parameters.redirectUriGiven).to.equal(false);
    });

    it('keeps the query of a registered redirect_uri and adds the response parameters', async () => {
      const result = await authorizeViaPages(flow.options({ redirectUri: MEMBER_REDIRECT_WITH_QUERY }));
      expect(result.location.searchParams.get('source')).to.equal('sg');
      expect(result.location.href.startsWith(`${MEMBER_REDIRECT_WITH_QUERY}&`)).to.equal(true);
    });

    it('shows the consent page on every authorization, also with a live session (spec, Authentication 13)', async () => {
      const jar = new CookieJar();
      const first = await authorizeViaPages(flow.options({ jar }));
      const second = await authorizeViaPages(flow.options({ jar, state: 'second' }));
      expect(first.pages).to.deep.equal(['sign-in', 'consent']);
      expect(second.pages).to.deep.equal(['consent']);
      expect(second.code).not.to.equal(first.code);
      expect(second.state).to.equal('second');
    });

    it('describes the client, its kind, the site, each scope in words and the redirect host on the consent page', async () => {
      const page = await flow.openConsent(new CookieJar(), { scope: 'openid email account:read account:write' });
      expect(page.html).to.contain('Study Buddy').and.contain('Member app').and.contain(flow.siteA.name);
      for (const scope of ['openid', 'email', 'account:read', 'account:write'] as const) expect(page.html).to.contain(SCOPE_WORDING[scope].replace(/'/g, '&#39;'));
      expect(page.html).to.contain('127.0.0.1:8765');
      expect(page.html).to.contain(flow.student.email).and.contain('Sign in as someone else');
      const form = flow.consentForm(page);
      expect(form.buttons.map((button) => button.value)).to.deep.equal(['approve', 'deny']);
      expect(page.html).not.to.match(/<script/i);
    });

    it('lets an operator authorize an operator tool, described as one', async () => {
      const jar = new CookieJar();
      const page = await flow.openConsent(jar, { clientId: flow.operatorClient.clientId, redirectUri: OPERATOR_REDIRECT, scope: 'openid courses:read' }, flow.operator.email);
      expect(page.html).to.contain('Operator tool').and.contain('ops.example.com');
      const answer = await submitForm(jar, page.url, flow.consentForm(page), { decision: 'approve' });
      expectRedirect(answer);
      expect(answer.status).to.equal(303);
      expect(answer.location.searchParams.get('code')).to.match(/^sgc_/);
    });

    it('pre-fills the email from login_hint', async () => {
      const page = await flow.openSignIn(new CookieJar(), { extraParameters: { login_hint: 'someone@example.com' } });
      expect(findForm(page.html, '/oauth/authorize/sign-in')?.fields.get('email')).to.equal('someone@example.com');
    });
  });
});
