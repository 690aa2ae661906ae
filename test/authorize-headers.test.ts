import { expect } from 'chai';
import { grantRole } from '../src/accounts/roles.js';
import { findLiveSession } from '../src/accounts/sessions.js';
import { createClient } from '../src/clients/clients.js';
import { createSite } from '../src/sites/sites.js';
import { authorizeViaPages, browserRequest, buildAuthorizationUrl, CookieJar, findForm, pageNameOf, submitForm } from './support/authorize-flow.js';
import { expectPage, expectPageSecurityHeaders, expectRedirect, MEMBER_REDIRECT, PASSWORD, rawRequest, useAuthorizePages } from './support/authorize-pages.js';
import { describeEachDatabase } from './support/databases.js';
import { startTestServer } from './support/server.js';

/**
 * GET /oauth/authorize through the pages, as a browser: the security headers and session cookies of the sign-in and
 * consent pages, and sessions that stay at their own site.
 */
describeEachDatabase('GET /oauth/authorize with sign-in and consent pages', (scratch) => {
  const flow = useAuthorizePages(scratch);

  describe('headers and cookies', () => {
    it('sends the page security headers on the sign-in and consent pages, with the redirect origin in form-action', async () => {
      const jar = new CookieJar();
      const signInPage = await flow.openSignIn(jar);
      expectPageSecurityHeaders(signInPage.response, 'http://127.0.0.1:8765');
      const consent = await flow.signIn(jar, signInPage, flow.student.email);
      expectPage(consent, 200, 'consent');
      expectPageSecurityHeaders(consent.response, 'http://127.0.0.1:8765');
      const redirect = await submitForm(jar, consent.url, flow.consentForm(consent), { decision: 'approve' });
      expectRedirect(redirect);
      expectPageSecurityHeaders(redirect.response, 'http://127.0.0.1:8765');
    });

    it('sets sg_session on an http origin: HttpOnly, SameSite=Lax, Path=/, no Secure', async () => {
      const jar = new CookieJar();
      const page = await flow.openSignIn(jar);
      const [anonymous] = page.response.headers.getSetCookie();
      expect(anonymous).to.match(/^sg_session=sgss_[A-Za-z0-9_-]{43}; Max-Age=3[56]\d\d; Path=\/; HttpOnly; SameSite=Lax$/);
      const consent = await flow.signIn(jar, page, flow.student.email);
      const [signedIn] = consent.response.headers.getSetCookie();
      expect(signedIn).to.match(/^sg_session=sgss_[A-Za-z0-9_-]{43}; Max-Age=43[12]\d\d; Path=\/; HttpOnly; SameSite=Lax$/);
    });

    it('sets __Host-sg_session with Secure on an https origin (behind a trusted proxy)', async () => {
      const { db } = scratch();
      const proxied = await startTestServer(scratch(), { trustProxy: true });
      try {
        const secureSite = await createSite(db, { origin: `https://secure-${proxied.port}.example`, name: 'Secure School', subdomain: `secure-${proxied.port}` });
        const client = (
          await createClient(db, secureSite.id, { name: 'Secure Buddy', audience: 'member', confidential: false, scopes: ['openid', 'account:read'], redirectUris: [MEMBER_REDIRECT] })
        ).client;
        await grantRole(db, secureSite.id, flow.student.id, 'student');
        const headers = { Host: `secure-${proxied.port}.example`, 'X-Forwarded-Proto': 'https' };
        const url = buildAuthorizationUrl(flow.options({ origin: secureSite.origin, clientId: client.clientId, scope: 'openid account:read' }));
        const page = await rawRequest(proxied.port, { path: `${url.pathname}${url.search}`, headers });
        expect(page.status).to.equal(200);
        const [cookie = ''] = page.headers['set-cookie'] ?? [];
        expect(cookie).to.match(/^__Host-sg_session=sgss_[A-Za-z0-9_-]{43}; Max-Age=3[56]\d\d; Path=\/; Secure; HttpOnly; SameSite=Lax$/);
        const form = findForm(page.body, '/oauth/authorize/sign-in');
        const body = new URLSearchParams([...(form?.fields ?? []), ['email', flow.student.email], ['password', PASSWORD]]).toString();
        const consent = await rawRequest(proxied.port, {
          method: 'POST',
          path: '/oauth/authorize/sign-in',
          headers: { ...headers, cookie: cookie.split(';')[0] ?? '', 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        expect(pageNameOf(consent.body)).to.equal('consent');
        expect(consent.headers['set-cookie']?.[0]).to.match(/^__Host-sg_session=sgss_[A-Za-z0-9_-]{43}; Max-Age=43[12]\d\d; Path=\/; Secure; HttpOnly; SameSite=Lax$/);
      } finally {
        await proxied.stop();
      }
    });

    it('a session of site A does not sign anyone in at site B', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      await authorizeViaPages(flow.options({ jar }));
      const token = jar.get(flow.siteA.origin, 'sg_session') ?? '';
      expect(await findLiveSession(db, flow.siteA.id, token)).to.not.equal(null);
      expect(await findLiveSession(db, flow.siteB.id, token)).to.equal(null);
      // Present A's cookie to B (as a browser would if both sites shared a host): B shows its sign-in page.
      const atB = new CookieJar();
      atB.set(flow.siteB.origin, 'sg_session', token);
      const answer = await browserRequest(atB, buildAuthorizationUrl(flow.options({ origin: flow.siteB.origin, clientId: flow.memberClientB.clientId, scope: 'openid' })));
      expectPage(answer, 200, 'sign-in');
      expect(atB.get(flow.siteB.origin, 'sg_session')).to.not.equal(token);
    });
  });
});
