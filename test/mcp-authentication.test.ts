import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import type { Variant } from '../src/config/config.js';
import { insertPair, newGrantId, revokeGrant } from '../src/oauth/tokens/store.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import type { McpCourse } from './support/mcp-clients.js';
import { call, callError, connect, PUBLIC_TOOLS, rawInitialize, toolNames, useMcpSchool, withClient, type McpSchool } from './support/mcp-school.js';

async function expectInvalidToken(origin: string, token: string | null, descriptionPart: RegExp, authorization = token === null ? undefined : `Bearer ${token}`): Promise<void> {
  const response = await rawInitialize(origin, authorization === undefined ? {} : { authorization });
  expect(response.status).to.equal(401);
  const body = (await response.json()) as { error: string; error_description: string };
  expect(body.error).to.equal('invalid_token');
  expect(body.error_description).to.match(descriptionPart);
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).to.match(/^Bearer /);
  expect(challenge).to.include('error="invalid_token"');
  expect(challenge).to.include(`resource_metadata="${origin}/.well-known/oauth-protected-resource"`);
  if (token === null) return;
  // The SDK client sees the same refusal.
  const failure = await connect(origin, token).then(
    async (client) => {
      await client.close();
      return null;
    },
    (error: unknown) => error,
  );
  expect(failure).to.be.instanceOf(StreamableHTTPError);
  expect((failure as StreamableHTTPError).code).to.equal(401);
}

/** A token written straight into the store, for the shapes the token endpoint never issues. */
async function storedToken(school: McpSchool, owner: { userId: number | null; schoolId: number | null }): Promise<{ token: string; grantId: string; pairId: number }> {
  const site = school.server.siteA;
  const issued = await insertPair(school.db, { grantId: newGrantId(), siteId: site.id, clientRef: school.memberApp.client.ref, userId: owner.userId, scopes: ['openid', 'account:read', 'account:write'], resource: site.origin, schoolId: owner.schoolId, authTime: new Date() });
  return { token: issued.accessToken, grantId: issued.pair.grantId, pairId: issued.pair.id };
}

/**
 * Who a /mcp request is (spec: Authentication 8-9 and the /mcp rows of Errors): the 401 invalid_token answers with the
 * challenge pointing at the protected-resource metadata (RFC 6750 3.1, RFC 9728 5.1), the member named by the token at
 * the token's own school, and tokens not bound to a user.
 */
for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`MCP endpoint /mcp, variant ${variant}`, (scratch) => authenticationSuite(variant, scratch));
}

function authenticationSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  const school = useMcpSchool(variant, scratch);

  describe('authentication', () => {
    it('refuses invalid, malformed, expired, revoked and other-origin tokens with 401 invalid_token pointing at the protected-resource metadata', async () => {
      await expectInvalidToken(school.origin, 'sga_not-a-real-token', /not recognised/);
      await expectInvalidToken(school.origin, null, /Bearer/, 'Basic dXNlcjpwYXNz');
      await expectInvalidToken(school.origin, school.tokens.siteB, /different origin/);
      const expired = await storedToken(school, { userId: school.mia.id, schoolId: variant === 'A' ? school.server.siteA.id : null });
      await school.db('token_pairs').where({ id: expired.pairId }).update({ access_expires_at: new Date(Date.now() - 1000) });
      await expectInvalidToken(school.origin, expired.token, /expired/);
      const revoked = await storedToken(school, { userId: school.mia.id, schoolId: variant === 'A' ? school.server.siteA.id : null });
      await revokeGrant(school.db, revoked.grantId, 'revoked');
      await expectInvalidToken(school.origin, revoked.token, /revoked/);
    });

    it('authenticates the member from the token (userinfo sub), at the token’s own school only', async () => {
      const userinfo = (await (await fetch(`${school.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${school.tokens.full}` } })).json()) as { sub: string };
      expect(userinfo.sub).to.equal(String(school.mia.id));
      const atB = await withClient(school.server.siteB.origin, school.tokens.siteB, (client) => call<{ courses: McpCourse[] }>(client, 'list_my_courses'));
      expect(atB.courses.map((course) => course.slug)).to.deep.equal(['beta-course']);
    });

    if (variant === 'A') {
      it('rejects a token with no resource owner as not bound to a user (variant A)', async () => {
        const ownerless = await storedToken(school, { userId: null, schoolId: school.server.siteA.id });
        await expectInvalidToken(school.origin, ownerless.token, /not bound to a user/);
      });

      it('rejects a member token without this school’s school_id as issued for a different organization (variant A)', async () => {
        const noSchool = await storedToken(school, { userId: school.mia.id, schoolId: null });
        await expectInvalidToken(school.origin, noSchool.token, /different organization/);
      });
    } else {
      it('serves a token with no resource owner the public tools only (variant B)', async () => {
        const ownerless = await storedToken(school, { userId: null, schoolId: null });
        expect(await toolNames(school.origin, ownerless.token)).to.deep.equal([...PUBLIC_TOOLS].sort());
        await withClient(school.origin, ownerless.token, async (client) => {
          const denied = await callError(client, 'list_my_courses');
          expect(denied.error).to.equal('insufficient_scope');
          expect(denied.error_description).to.include('not bound to a member');
        });
      });
    }
  });
}
