import { expect } from 'chai';
import { findLiveSession } from '../src/accounts/sessions.js';
import { SIGN_IN_LIMITS, signInBuckets } from '../src/accounts/sign-in.js';
import { currentHits, hit } from '../src/db/rate-limit.js';
import { sha256Hex } from '../src/shared/random.js';
import { authorizeViaPages, CookieJar, findForm, pageMessage, submitForm } from './support/authorize-flow.js';
import { expectPage, expectPageSecurityHeaders, expectRedirect, useAuthorizePages } from './support/authorize-pages.js';
import { describeEachDatabase } from './support/databases.js';
import { startOfRoomyWindow } from './support/rate-windows.js';

/**
 * GET /oauth/authorize through the pages, as a browser: the sign-in page of the authorization flow: one generic
 * refusal, failure limits per account and per address counted in the database, session rotation, switching accounts
 * and prompt=login.
 */
describeEachDatabase('GET /oauth/authorize with sign-in and consent pages', (scratch) => {
  const flow = useAuthorizePages(scratch);

  describe('sign-in', () => {
    it('answers a wrong password and an unknown email with the same generic message', async () => {
      const jar = new CookieJar();
      const wrongPassword = await flow.signIn(jar, await flow.openSignIn(jar), flow.student.email, 'not the password');
      expectPage(wrongPassword, 400, 'sign-in');
      const unknown = await flow.signIn(jar, wrongPassword, 'nobody@example.com', 'not the password');
      expectPage(unknown, 400, 'sign-in');
      const notAnEmail = await flow.signIn(jar, unknown, 'not-an-email', 'not the password');
      expectPage(notAnEmail, 400, 'sign-in');
      expect(pageMessage(wrongPassword.html)).to.equal('The email or password is not correct.');
      expect(pageMessage(unknown.html)).to.equal(pageMessage(wrongPassword.html));
      expect(pageMessage(notAnEmail.html)).to.equal(pageMessage(wrongPassword.html));
      // The form still works after failures.
      const consent = await flow.signIn(jar, notAnEmail, flow.student.email);
      expectPage(consent, 200, 'consent');
    });

    it(`limits failures per account: after ${SIGN_IN_LIMITS.perAccount.limit} the account gets 429, even with the right password`, async function () {
      this.timeout(300_000);
      await startOfRoomyWindow(SIGN_IN_LIMITS.perAccount.windowSeconds, 120);
      const jar = new CookieJar();
      let page = await flow.openSignIn(jar);
      for (let attempt = 0; attempt < SIGN_IN_LIMITS.perAccount.limit; attempt += 1) {
        const answer = await flow.signIn(jar, page, flow.operator.email, `wrong-${attempt}`);
        expectPage(answer, 400, 'sign-in');
        page = answer;
      }
      const blocked = await flow.signIn(jar, page, flow.operator.email);
      expectPage(blocked, 429, 'error');
      // Sliding windows: the wait until one more attempt fits may reach two windows (docs/authorize.md).
      expect(Number(blocked.response.headers.get('retry-after'))).to.be.within(1, 2 * SIGN_IN_LIMITS.perAccount.windowSeconds);
      expect(pageMessage(blocked.html)).to.match(/Wait \d+ minutes?/);
      expectPageSecurityHeaders(blocked.response);
      // Another account from the same address is not blocked.
      expect((await authorizeViaPages(flow.options({ email: flow.student.email }))).code).to.match(/^sgc_/);
    });

    it(`limits failures per client address: ${SIGN_IN_LIMITS.perAddress.limit} failures from one address block every account`, async function () {
      this.timeout(300_000);
      const { db } = scratch();
      const { limit, windowSeconds } = SIGN_IN_LIMITS.perAddress;
      await startOfRoomyWindow(windowSeconds, 120);
      // The server sees the test's loopback connections as 127.0.0.1 or ::1; fill both addresses' buckets to one below the limit.
      for (const address of ['127.0.0.1', '::1']) {
        for (let count = 0; count < limit - 1; count += 1) await hit(db, signInBuckets('filler@example.com', address).address, windowSeconds, limit);
      }
      const jar = new CookieJar();
      const last = await flow.signIn(jar, await flow.openSignIn(jar), 'someone.else@example.com', 'wrong');
      expectPage(last, 400, 'sign-in');
      const blocked = await flow.signIn(jar, last, flow.student.email);
      expectPage(blocked, 429, 'error');
      expect(blocked.response.headers.get('retry-after')).to.match(/^\d+$/);
    });

    it('counts in the database: the counters are rows, and a success gives back its attempt and its account\'s earlier failures', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      const failed = await flow.signIn(jar, await flow.openSignIn(jar), flow.student.email, 'wrong');
      expectPage(failed, 400, 'sign-in');
      // The sign-in counters; the authorize request that showed the page has its own (test/anonymous-limits.test.ts).
      const rows = (await db('rate_limit_counters').where('bucket', 'like', 'sign-in:%').select('bucket', 'hits')) as Array<{ bucket: string; hits: number }>;
      expect(rows.map((row) => row.bucket).sort()).to.have.length(2);
      expect(rows.every((row) => Number(row.hits) === 1)).to.equal(true);
      expect(JSON.stringify(rows)).not.to.contain(flow.student.email);
      expectPage(await flow.signIn(jar, failed, flow.student.email), 200, 'consent');
      // The typo followed by the right password costs neither the account nor the address anything.
      const after = (await db('rate_limit_counters').where('bucket', 'like', 'sign-in:%').select('hits')) as Array<{ hits: number }>;
      expect(after.map((row) => Number(row.hits))).to.deep.equal([0, 0]);
    });

    it('counts concurrent hits of one bucket atomically (a window shared by every instance)', async () => {
      const { db } = scratch();
      const results = await Promise.all(Array.from({ length: 12 }, () => hit(db, 'test:concurrent', 60, 10)));
      expect(results.map((result) => result.hits).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 12 }, (_, index) => index + 1));
      expect(results.filter((result) => !result.allowed)).to.have.length(2);
      expect(Number(((await db('rate_limit_counters').where({ bucket: 'test:concurrent' }).first('hits')) as { hits: number }).hits)).to.equal(12);
      expect(await currentHits(db, 'test:concurrent', 60)).to.equal(12);
    });

    it('rotates the session token on sign-in and stores only hashes of tokens and handles', async () => {
      const { db } = scratch();
      const jar = new CookieJar();
      const page = await flow.openSignIn(jar);
      const anonymous = jar.get(flow.siteA.origin, 'sg_session') ?? '';
      expect(anonymous).to.match(/^sgss_/);
      const handle = findForm(page.html, '/oauth/authorize/sign-in')?.fields.get('handle') ?? '';
      expect(handle).to.match(/^sgar_/);
      expectPage(await flow.signIn(jar, page, flow.student.email), 200, 'consent');
      const signedIn = jar.get(flow.siteA.origin, 'sg_session') ?? '';
      expect(signedIn).to.match(/^sgss_/).and.not.equal(anonymous);
      expect(await findLiveSession(db, flow.siteA.id, anonymous)).to.equal(null);
      expect((await findLiveSession(db, flow.siteA.id, signedIn))?.userId).to.equal(flow.student.id);
      const stored = JSON.stringify([await db('sign_in_sessions').select(), await db('authorization_requests').select()]);
      expect(stored).not.to.contain(signedIn).and.not.to.contain(anonymous).and.not.to.contain(handle);
      expect(stored).to.contain(sha256Hex(signedIn)).and.to.contain(sha256Hex(handle));
    });

    it('"Not you?" ends the session and signs in someone else', async () => {
      const jar = new CookieJar();
      const consent = await flow.openConsent(jar);
      const before = jar.get(flow.siteA.origin, 'sg_session') ?? '';
      const form = findForm(consent.html, '/oauth/authorize/switch-account');
      if (!form) expect.fail('no switch-account form');
      const signInAgain = await submitForm(jar, consent.url, form, {});
      expectPage(signInAgain, 200, 'sign-in');
      expect(await findLiveSession(scratch().db, flow.siteA.id, before)).to.equal(null);
      const other = await flow.signIn(jar, signInAgain, flow.lecturer.email);
      expectPage(other, 200, 'consent');
      expect(other.html).to.contain(flow.lecturer.email).and.not.contain(flow.student.email);
      const answer = await submitForm(jar, other.url, flow.consentForm(other), { decision: 'approve' });
      expectRedirect(answer);
      const row = (await scratch().db('authorization_codes').where({ code_hash: sha256Hex(answer.location.searchParams.get('code') ?? '') }).first()) as { user_id: number };
      expect(row.user_id).to.equal(flow.lecturer.id);
    });

    it('prompt=login asks for the password even with a live session', async () => {
      const jar = new CookieJar();
      await authorizeViaPages(flow.options({ jar }));
      const again = await authorizeViaPages(flow.options({ jar, extraParameters: { prompt: 'login' } }));
      expect(again.pages).to.deep.equal(['sign-in', 'consent']);
    });
  });
});
