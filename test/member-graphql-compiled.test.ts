import { expect } from 'chai';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { execute, parse, type ExecutionResult } from 'graphql';
import type { Variant } from '../src/config/config.js';
import { compiledExecutor } from '../src/graphql/compiled.js';
import { GraphQLContext } from '../src/graphql/context.js';
import { buildMemberSchema } from '../src/graphql/schema.js';
import { importSiteDocument } from '../src/import/import-site.js';
import type { Scope } from '../src/clients/scopes.js';
import { describeEachDatabase } from './support/databases.js';
import { gql, memberToken } from './support/member-api.js';
import { memberSchool } from './support/member-school.js';
import { makeUser } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';
import { variantProfile } from '../src/variant.js';

const NOW = Math.floor(Date.now() / 60_000) * 60_000;

const SYLLABUS = `{ viewer { id name email enrolledCourses(first: 10) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } }
  nodes { id slug title description coverImageUrl expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds }
    detailProgress { totalLecturesCount completedLecturesCount readLecturesCount unreadLecturesCount completionRate totalDurationSeconds completedDurationSeconds }
    sections { id title position lectures { id title state isLocked unlockAt duration position } } } } } }`;

/** Documents whose answers hold data, errors, or both, with the variables they run with. */
const CASES: Array<[string, string, Record<string, unknown>]> = [
  ['the full syllabus', SYLLABUS, {}],
  ['a second page by cursor, with fragments and aliases', `query Page($after: String) { me: viewer { ...Courses } } fragment Courses on Viewer { enrolledCourses(first: 1, after: $after) { totalCount n: nodes { slug } pageInfo { hasPreviousPage hasNextPage } } }`, { after: null }],
  ['an error on a nullable field beside data', '{ viewer { id schools { id } enrolledCourses(first: -1) { totalCount } } }', {}],
  ['a malformed cursor given as a variable', 'query ($c: String) { viewer { enrolledCourses(after: $c) { nodes { slug } } } }', { c: 'not-a-cursor' }],
  ['skip and include', 'query ($yes: Boolean!) { viewer { id @include(if: $yes) name @skip(if: $yes) enrolledCourses { nodes { slug @include(if: false) title } } } }', { yes: true }],
  ['__typename and introspection', '{ __typename viewer { __typename } __type(name: "Lecture") { name fields { name } } }', {}],
];

for (const variant of ['A', 'B'] as const satisfies readonly Variant[]) {
  describeEachDatabase(`member GraphQL: compiled queries answer as graphql-js does [variant ${variant}]`, (scratch) => {
    let server: TestServer;
    let userId: number;
    let token: string;
    const { schema } = buildMemberSchema(variantProfile(variant));
    // Both ways production and development run: built-in leaf values passed through as the resolvers return them, or serialised.
    const executors = [
      ['trusting the resolvers\' leaf values (production)', compiledExecutor(schema, 'trusted')],
      ['checking every leaf value (development and tests)', compiledExecutor(schema, 'checked')],
    ] as const;

    before(async () => {
      server = await startTestServer(scratch(), { variant });
      const member = await makeUser(scratch().db, server.siteA, ['student'], 'Compiled Member');
      await importSiteDocument(scratch().db, memberSchool(server.siteA, member, NOW));
      userId = member.id;
      token = await memberToken(scratch().db, server.siteA, member);
    });
    after(async () => server.stop());

    function context(scopes: readonly Scope[], user = userId): GraphQLContext {
      const member = new GraphQLContext({ db: scratch().db, site: server.siteA, userId: user, now: new Date(NOW) });
      member.scopes = scopes;
      return member;
    }

    /** graphql-js and each compiled executor on fresh contexts (loaders cache per request); the answers as their JSON. */
    async function both(query: string, variables: Record<string, unknown>, scopes: readonly Scope[], user?: number): Promise<[unknown, unknown[]]> {
      const document = parse(query);
      const reference = (await execute({ schema, document, variableValues: variables, contextValue: context(scopes, user) })) as ExecutionResult;
      const fast = await Promise.all(executors.map(([, compiled]) => compiled({ schema, document, variableValues: variables, contextValue: context(scopes, user) })));
      return [JSON.parse(JSON.stringify(reference)), fast.map((result) => JSON.parse(JSON.stringify(result)) as unknown)];
    }

    /** Each compiled answer equals graphql-js's, named by the way it was compiled. */
    function expectSameAnswers(reference: unknown, fast: unknown[]): void {
      fast.forEach((answer, index) => expect(answer, executors[index]![0]).to.deep.equal(reference));
    }

    for (const [name, query, variables] of CASES) {
      it(`answers ${name} exactly like graphql-js`, async () => {
        const [reference, fast] = await both(query, variables, ['account:read', 'account:write']);
        expectSameAnswers(reference, fast);
      });
    }

    it('propagates a failed non-null field to its nullable parent like graphql-js (a member who no longer exists)', async () => {
      const [reference, fast] = await both('{ viewer { id enrolledCourses { totalCount } } }', {}, ['account:read'], 987_654_321);
      expect(reference).to.have.property('data', null);
      expectSameAnswers(reference, fast);
    });

    if (variant === 'A') {
      it('answers a field needing a scope the token lacks like graphql-js', async () => {
        const [reference, fast] = await both('{ viewer { id } }', {}, ['account:write']);
        expect((reference as { errors?: unknown[] }).errors).to.have.length(1);
        expectSameAnswers(reference, fast);
      });
    }

    it('keeps locations, path and code on error entries over HTTP', async () => {
      const result = await gql(server.siteA.origin, variant, token, '{ viewer { id enrolledCourses(first: -1) { totalCount } } }');
      expect(result.status).to.equal(200);
      expect(result.errors?.[0]).to.deep.include({ path: ['viewer', 'enrolledCourses'], locations: [{ line: 1, column: 15 }] });
      expect(result.errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
    });
  });
}

describe('member GraphQL: leaf values in compiled queries', () => {
  // A resolver that returns a value its scalar would have to convert: graphql-js answers the converted value.
  const schema = makeExecutableSchema({
    typeDefs: 'enum Colour { RED } type Query { id: ID! count: Int colour: Colour title: String }',
    resolvers: { Query: { id: () => 5, count: () => 3, colour: () => 'RED', title: () => 'as returned' } },
  });
  const document = parse('{ id count colour title }');

  it('checked (development and tests): a value serialising would change is a field error naming the type', async () => {
    const result = await compiledExecutor(schema, 'checked')({ schema, document });
    expect(result.data).to.equal(null);
    expect(result.errors?.[0]?.message).to.match(/ID cannot represent number 5 as it is/);
    expect(result.errors?.[0]?.path).to.deep.equal(['id']);
  });

  it('checked: values already in their serialised form are answered as graphql-js answers them', async () => {
    const valid = makeExecutableSchema({ typeDefs: 'enum Colour { RED } type Query { id: ID! count: Int colour: Colour }', resolvers: { Query: { id: () => '5', count: () => 3, colour: () => 'RED' } } });
    const query = parse('{ id count colour }');
    const result = await compiledExecutor(valid, 'checked')({ schema: valid, document: query });
    expect(JSON.parse(JSON.stringify(result))).to.deep.equal(JSON.parse(JSON.stringify(await execute({ schema: valid, document: query }))));
    expect(result).to.deep.equal({ data: { id: '5', count: 3, colour: 'RED' } });
  });

  it('trusted (production): values are answered as the resolvers return them', async () => {
    const result = await compiledExecutor(schema, 'trusted')({ schema, document });
    expect(result).to.deep.equal({ data: { id: 5, count: 3, colour: 'RED', title: 'as returned' } });
  });
});
