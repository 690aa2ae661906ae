import { expect } from 'chai';
import { auditServer } from 'graphql-http';
import type { User } from '../src/accounts/users.js';
import type { Variant } from '../src/config/config.js';
import { describeEachDatabase } from './support/databases.js';
import { gql, graphqlPath, memberToken } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

const VIEWER = '{ viewer { id email } }';

for (const variant of ['A', 'B'] as const satisfies readonly Variant[]) {
  describeEachDatabase(`member GraphQL over HTTP: authorization, bad input, audits [variant ${variant}]`, (scratch) => {
    let server: TestServer;
    let member: User;
    let token: string;
    let url: string;
    before(async () => {
      server = await startTestServer(scratch(), { variant });
      member = await makeUser(scratch().db, server.siteA, ['student'], 'Graph Member');
      token = await memberToken(scratch().db, server.siteA, member);
      url = `${server.siteA.origin}${graphqlPath(variant)}`;
    });
    after(async () => server.stop());

    it('serves the viewer to a member token, authenticating from the token owner', async () => {
      const result = await gql<{ viewer: { id: string; email: string } }>(server.siteA.origin, variant, token, VIEWER);
      expect(result.status).to.equal(200);
      expect(result.data?.viewer).to.deep.equal({ id: String(member.id), email: member.email });
    });

    it('has no anonymous mode: no token is 401 invalid_token with the resource metadata pointer', async () => {
      const result = await gql(server.siteA.origin, variant, null, VIEWER);
      expect(result.status).to.equal(401);
      expect(result.headers.get('www-authenticate')).to.match(new RegExp(`error="invalid_token".*resource_metadata="${server.siteA.origin}/\\.well-known/oauth-protected-resource"`));
      expect(result.errors?.[0]?.extensions?.code).to.equal('invalid_token');
    });

    it('refuses a token bound to another origin with 401 invalid_token and a resource_metadata pointer', async () => {
      const result = await gql(server.siteB.origin, variant, token, VIEWER);
      expect(result.status).to.equal(401);
      expect(result.headers.get('www-authenticate')).to.contain(`resource_metadata="${server.siteB.origin}/.well-known/oauth-protected-resource"`);
    });

    if (variant === 'A') {
      it('refuses a token without school_id as issued for a different organization', async () => {
        const other = await memberToken(scratch().db, server.siteA, member);
        await scratch().db('token_pairs').where({ id: (await scratch().db('token_pairs').orderBy('id', 'desc').first('id')).id }).update({ school_id: null });
        const result = await gql(server.siteA.origin, variant, other, VIEWER);
        expect(result.status).to.equal(401);
        expect(result.errors?.[0]?.message).to.contain('different organization');
      });

      it('answers 403 insufficient_scope with WWW-Authenticate for a token with neither account scope', async () => {
        const result = await gql(server.siteA.origin, variant, await memberToken(scratch().db, server.siteA, member, 'openid profile'), VIEWER);
        expect(result.status).to.equal(403);
        expect(result.headers.get('www-authenticate')).to.contain('error="insufficient_scope"');
      });

      it('answers 200 with an errors entry naming account:read for an account:write-only token, without WWW-Authenticate', async () => {
        const result = await gql(server.siteA.origin, variant, await memberToken(scratch().db, server.siteA, member, 'account:write'), VIEWER);
        expect(result.status).to.equal(200);
        expect(result.headers.get('www-authenticate')).to.equal(null);
        expect(result.errors?.[0]?.extensions).to.include({ code: 'INSUFFICIENT_SCOPE', requiredScope: 'account:read' });
      });

      it('answers 200 with an errors entry naming account:write for a mutation with an account:read-only token', async () => {
        const readOnly = await memberToken(scratch().db, server.siteA, member, 'account:read');
        const result = await gql(server.siteA.origin, variant, readOnly, 'mutation { markAllNotificationsRead { markedCount } }');
        expect(result.status).to.equal(200);
        expect(result.headers.get('www-authenticate')).to.equal(null);
        expect(result.errors?.[0]?.extensions).to.include({ code: 'INSUFFICIENT_SCOPE', requiredScope: 'account:write' });
      });
    } else {
      it('answers 403 insufficient_scope with WWW-Authenticate when the token lacks a required scope', async () => {
        const result = await gql(server.siteA.origin, variant, await memberToken(scratch().db, server.siteA, member, 'openid profile'), VIEWER);
        expect(result.status).to.equal(403);
        expect(result.headers.get('www-authenticate')).to.match(/error="insufficient_scope".*scope="account:read"/);
      });

      it('has no mutation root', async () => {
        const result = await gql(server.siteA.origin, variant, token, 'mutation { markAllNotificationsRead { markedCount } }');
        expect(result.errors?.[0]?.message).to.match(/mutation/i);
      });
    }

    describe('bad input gets GraphQL-over-HTTP errors and the server keeps serving', () => {
      const post = (body: string, contentType = 'application/json') =>
        fetch(url, { method: 'POST', headers: { 'content-type': contentType, accept: 'application/graphql-response+json', authorization: `Bearer ${token}` }, body });

      it('malformed JSON, wrong content type, missing query', async () => {
        const malformed = await post('{"query": ');
        expect(malformed.status).to.equal(400);
        expect(((await malformed.json()) as { errors: unknown[] }).errors).to.have.length.greaterThan(0);
        expect((await post('query=x', 'text/plain')).status).to.equal(415);
        const missing = await post('{}');
        expect(missing.status).to.equal(400);
      });

      it('a huge document (413) and one with too many tokens (400)', async () => {
        const huge = await post(JSON.stringify({ query: `{ viewer { id ${' email'.repeat(20000)} } }` }));
        expect(huge.status).to.equal(413);
        const many = await post(JSON.stringify({ query: `{ viewer { ${'id '.repeat(5000)} } }` }));
        expect(many.status).to.equal(400);
        expect(JSON.stringify(await many.json())).to.contain('more that 4000 tokens');
      });

      it('deep nesting and oversized fan-out are refused with codes', async () => {
        const deep = await gql(server.siteA.origin, variant, token, `{ viewer { ${'enrolledCourses { nodes { '.repeat(3)}id${' } }'.repeat(3)} } }`);
        expect(deep.errors?.length).to.be.greaterThan(0);
        const costly = await gql(server.siteA.origin, variant, token, '{ viewer { enrolledCourses(first: 100) { nodes { sections { lectures { id title state isLocked unlockAt duration } } again: sections { lectures { id title } } } } } }');
        expect(costly.errors?.[0]?.extensions?.code).to.equal('QUERY_TOO_COSTLY');
      });

      it('negative and combined page sizes and bad cursors are BAD_USER_INPUT', async () => {
        for (const args of ['first: -1', 'first: 1, last: 1', 'after: "not-a-cursor"']) {
          const result = await gql(server.siteA.origin, variant, token, `{ viewer { enrolledCourses(${args}) { totalCount } } }`);
          expect(result.errors?.[0]?.extensions?.code, args).to.equal('BAD_USER_INPUT');
        }
        expect((await gql(server.siteA.origin, variant, token, VIEWER)).status).to.equal(200);
      });

      it('allows introspection to an authenticated caller', async () => {
        const result = await gql<{ __schema: { queryType: { name: string } } }>(server.siteA.origin, variant, token, '{ __schema { queryType { name } } }');
        expect(result.data?.__schema.queryType.name).to.equal('Query');
      });
    });

    it("passes every MUST audit of graphql-http's server audit suite", async function () {
      this.timeout(60000);
      const results = await auditServer({
        url,
        fetchFn: (input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), authorization: `Bearer ${token}` } }),
      });
      const failedMust = results.filter((result) => result.status === 'error');
      const warnings = results.filter((result) => result.status === 'warn');
      process.stdout.write(`      graphql-http audits [variant ${variant}]: ${results.length} run, ${results.filter((result) => result.status === 'ok').length} ok, ${warnings.length} SHOULD warnings${warnings.map((warning) => `\n        warn: ${warning.name}`).join('')}\n`);
      expect(failedMust.map((result) => `${result.name}: ${'reason' in result ? result.reason : ''}`)).to.deep.equal([]);
    });
  });
}
