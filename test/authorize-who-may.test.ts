import { expect } from 'chai';
import { authorizeViaPages, authorizeViaPagesExpectingError, browserRequest, buildAuthorizationUrl, CookieJar, pageMessage } from './support/authorize-flow.js';
import { expectPage, OPERATOR_REDIRECT, useAuthorizePages } from './support/authorize-pages.js';
import { describeEachDatabase } from './support/databases.js';

/**
 * GET /oauth/authorize through the pages, as a browser: who may authorize which client (spec: Authentication 4-5):
 * members authorize member clients, operators operator clients, and nobody authorizes at a school where they have no
 * role.
 */
describeEachDatabase('GET /oauth/authorize with sign-in and consent pages', (scratch) => {
  const flow = useAuthorizePages(scratch);

  describe('who may authorize (spec, Authentication 4-5)', () => {
    it('a student can authorize a member client', async () => {
      const result = await authorizeViaPages(flow.options({ email: flow.student.email }));
      expect(result.code).to.match(/^sgc_/);
    });

    it('a lecturer can authorize a member client', async () => {
      expect((await authorizeViaPages(flow.options({ email: flow.lecturer.email }))).code).to.match(/^sgc_/);
    });

    it('a student cannot authorize an operator client: access_denied after signing in', async () => {
      const result = await authorizeViaPagesExpectingError(flow.options({ clientId: flow.operatorClient.clientId, redirectUri: OPERATOR_REDIRECT, scope: 'openid courses:read' }));
      expect(result.error).to.equal('access_denied');
      expect(result.errorDescription).to.contain('operator');
      expect(result.state).to.equal('state-123');
      expect(result.iss).to.equal(flow.siteA.origin);
      expect(result.pages).to.deep.equal(['sign-in']);
    });

    it('a user with no role at this site (only at another) gets access_denied', async () => {
      const result = await authorizeViaPagesExpectingError(flow.options({ email: flow.outsider.email }));
      expect(result.error).to.equal('access_denied');
      expect(result.errorDescription).to.contain('no role');
      // …and can authorize at the site where they hold one.
      const atB = await authorizeViaPages(flow.options({ origin: flow.siteB.origin, clientId: flow.memberClientB.clientId, scope: 'openid account:read', email: flow.outsider.email }));
      expect(atB.iss).to.equal(flow.siteB.origin);
    });

    it('a signed-in student opening an operator client is offered the sign-in page to switch accounts', async () => {
      const jar = new CookieJar();
      await authorizeViaPages(flow.options({ jar }));
      const answer = await browserRequest(jar, buildAuthorizationUrl(flow.options({ clientId: flow.operatorClient.clientId, redirectUri: OPERATOR_REDIRECT, scope: 'openid school:read' })));
      expectPage(answer, 200, 'sign-in');
      expect(pageMessage(answer.html)).to.contain(flow.student.email).and.contain('operator');
      const consent = await flow.signIn(jar, answer, flow.operator.email);
      expectPage(consent, 200, 'consent');
      expect(consent.html).to.contain(flow.operator.email);
    });
  });
});
