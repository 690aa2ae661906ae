import { expect } from 'chai';
import { sha256Hex } from '../src/shared/random.js';
import { authorizeViaPages, browserRequest, buildAuthorizationUrl, CookieJar, findForm, pageMessage, pageNameOf, submitForm } from './support/authorize-flow.js';
import { expectPage, expectPageSecurityHeaders, expectRedirect, OPERATOR_REDIRECT, PASSWORD, useAuthorizePages } from './support/authorize-pages.js';
import { describeEachDatabase } from './support/databases.js';

/**
 * GET /oauth/authorize through the pages, as a browser: the sign-in and consent forms: CSRF tokens, single use, expiry
 * and form encoding.
 */
describeEachDatabase('GET /oauth/authorize with sign-in and consent pages', (scratch) => {
  const flow = useAuthorizePages(scratch);

  describe('CSRF, single use and expiry', () => {
    it('refuses a sign-in post without or with a wrong CSRF token (403 page)', async () => {
      const jar = new CookieJar();
      const page = await flow.openSignIn(jar);
      const form = findForm(page.html, '/oauth/authorize/sign-in');
      if (!form) expect.fail('no sign-in form');
      const missing = new Map(form.fields);
      missing.delete('csrf_token');
      for (const fields of [missing, new Map([...form.fields, ['csrf_token', 'forged']])]) {
        const answer = await browserRequest(jar, new URL('/oauth/authorize/sign-in', flow.siteA.origin), { form: new Map([...fields, ['email', flow.student.email], ['password', PASSWORD]]) });
        expectPage(answer, 403, 'error');
        expectPageSecurityHeaders(answer.response);
      }
      // A cross-site post carries no cookie (SameSite=Lax): same answer.
      const noCookie = await submitForm(new CookieJar(), page.url, form, { email: flow.student.email, password: PASSWORD });
      expectPage(noCookie, 403, 'error');
    });

    it('refuses a consent post with a wrong CSRF token, or the token of another session', async () => {
      const mine = new CookieJar();
      const theirs = new CookieJar();
      const page = await flow.openConsent(mine);
      const otherPage = await flow.openConsent(theirs);
      const forged = await submitForm(mine, page.url, flow.consentForm(page), { decision: 'approve', csrf_token: 'A'.repeat(43) });
      expectPage(forged, 403, 'error');
      const borrowed = await submitForm(mine, page.url, flow.consentForm(page), { decision: 'approve', csrf_token: flow.consentForm(otherPage).fields.get('csrf_token') ?? '' });
      expectPage(borrowed, 403, 'error');
      // The genuine form still works once.
      const answer = await submitForm(mine, page.url, flow.consentForm(page), { decision: 'approve' });
      expectRedirect(answer);
    });

    it('answers a replayed consent post with an error page and no second code', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      const page = await flow.openConsent(jar);
      const first = await submitForm(jar, page.url, flow.consentForm(page), { decision: 'approve' });
      expectRedirect(first);
      const codes = (await db('authorization_codes').count({ n: '*' }))[0]?.n;
      const replay = await submitForm(jar, page.url, flow.consentForm(page), { decision: 'approve' });
      expectPage(replay, 400, 'error');
      expect(pageMessage(replay.html)).to.contain('already completed');
      const deny = await submitForm(jar, page.url, flow.consentForm(page), { decision: 'deny' });
      expectPage(deny, 400, 'error');
      expect((await db('authorization_codes').count({ n: '*' }))[0]?.n).to.equal(codes);
    });

    it('lets only one of two simultaneous consent posts through', async () => {
      const jar = new CookieJar();
      const page = await flow.openConsent(jar);
      const answers = await Promise.all([1, 2, 3].map(() => submitForm(jar, page.url, flow.consentForm(page), { decision: 'approve' })));
      expect(answers.filter((answer) => answer.kind === 'redirect')).to.have.length(1);
      expect(answers.filter((answer) => answer.kind === 'page' && answer.status === 400)).to.have.length(2);
    });

    it('refuses a consent post for a request whose consent page this session was never shown', async () => {
      const codesBefore = await scratch().db('authorization_codes').where({ client_ref: flow.operatorClient.ref });
      const jar = new CookieJar();
      await authorizeViaPages(flow.options({ jar }));
      // Signed in as a student, an operator tool gets the sign-in page (to switch accounts), not the consent page…
      const page = await browserRequest(jar, buildAuthorizationUrl(flow.options({ clientId: flow.operatorClient.clientId, redirectUri: OPERATOR_REDIRECT, scope: 'openid school:read' })));
      expectPage(page, 200, 'sign-in');
      const form = findForm(page.html, '/oauth/authorize/sign-in');
      // …whose CSRF token is valid for this session, but cannot approve a consent that was not shown.
      const answer = await browserRequest(jar, new URL('/oauth/authorize/consent', flow.siteA.origin), {
        form: { handle: form?.fields.get('handle') ?? '', csrf_token: form?.fields.get('csrf_token') ?? '', decision: 'approve' },
      });
      expectPage(answer, 400, 'error');
      expect(await scratch().db('authorization_codes').where({ client_ref: flow.operatorClient.ref })).to.have.length(codesBefore.length);
    });

    it('refuses an expired authorization request', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      const page = await flow.openSignIn(jar);
      const handle = findForm(page.html, '/oauth/authorize/sign-in')?.fields.get('handle') ?? '';
      await db('authorization_requests').where({ handle_hash: sha256Hex(handle) }).update({ expires_at: new Date(Date.now() - 1000) });
      const answer = await flow.signIn(jar, page, flow.student.email);
      expectPage(answer, 400, 'error');
      expect(pageMessage(answer.html)).to.contain('expired');
    });

    it('refuses a form post that is not application/x-www-form-urlencoded, or repeats a field', async () => {
      const jar = new CookieJar();
      const page = await flow.openSignIn(jar);
      const cookie = jar.header(flow.siteA.origin) ?? '';
      const json = await fetch(new URL('/oauth/authorize/sign-in', flow.siteA.origin), { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}', redirect: 'manual' });
      expect(json.status).to.equal(400);
      expect(pageNameOf(await json.text())).to.equal('error');
      const form = findForm(page.html, '/oauth/authorize/sign-in');
      const body = `${new URLSearchParams([...(form?.fields ?? []), ['email', flow.student.email], ['password', PASSWORD]]).toString()}&email=x%40example.com`;
      const repeated = await fetch(new URL('/oauth/authorize/sign-in', flow.siteA.origin), { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });
      expect(repeated.status).to.equal(400);
      expect(await repeated.text()).to.contain('more than once');
    });
  });
});
