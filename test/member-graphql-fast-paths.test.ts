import { expect } from 'chai';
import { createHandler, type Handler, type HandlerOptions, type Response as HttpResponse } from 'graphql-http';
import { execute, parse, type ExecutionResult } from 'graphql';
import { compiledExecutor } from '../src/graphql/compiled.js';
import { GraphQLContext } from '../src/graphql/context.js';
import { memberDocuments } from '../src/graphql/documents.js';
import { formatError } from '../src/graphql/errors.js';
import { successResponse } from '../src/graphql/http/success-response.js';
import { depthAndCostRule, LIMITS } from '../src/graphql/limits.js';
import { buildMemberSchema } from '../src/graphql/schema.js';
import { ACCOUNT_SCOPES } from '../src/graphql/scope-gate.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { VARIANT_PROFILES } from '../src/variant.js';
import { describeEachDatabase } from './support/databases.js';
import { memberToken } from './support/member-api.js';
import { memberSchool } from './support/member-school.js';
import { makeUser } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

/*
 * Each fast path of the member API is held to the answer of the libraries it stands in for, on the same schema and
 * the same data: the endpoint as a whole against plain graphql-http with graphql-js execute; the document cache
 * against graphql-http's own parse and validate with the same rules; compiled execution against graphql-js execute;
 * the serialising shortcut against graphql-http's own response.
 */


interface Case {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

const SYLLABUS = `{ viewer { id name email enrolledCourses(first: 10) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } }
  nodes { id slug title hasLifetimeAccess expireDate sections { id title position lectures { id title isLocked unlockAt duration position } } } } } }`;

/** Answers with data, with errors beside data, and without data, over the schema both deployments share. */
const EXECUTED: readonly Case[] = [
  { name: 'the syllabus', query: SYLLABUS },
  { name: 'fragments, aliases and a variable', query: 'query Page($after: String) { me: viewer { ...Courses } } fragment Courses on Viewer { enrolledCourses(first: 1, after: $after) { totalCount n: nodes { slug } pageInfo { hasPreviousPage hasNextPage } } }', variables: { after: null }, operationName: 'Page' },
  { name: 'skip and include', query: 'query ($yes: Boolean!) { viewer { id @include(if: $yes) name @skip(if: $yes) enrolledCourses { nodes { slug @include(if: false) title } } } }', variables: { yes: true } },
  { name: 'a field error beside data', query: '{ viewer { id enrolledCourses(first: -1) { totalCount } } }' },
  { name: 'a malformed cursor given as a variable', query: 'query ($c: String) { viewer { enrolledCourses(after: $c) { nodes { slug } } } }', variables: { c: 'not-a-cursor' } },
  { name: '__typename', query: '{ __typename viewer { __typename } }' },
  { name: 'a variable of the wrong type', query: 'query ($n: Int) { viewer { enrolledCourses(first: $n) { totalCount } } }', variables: { n: 'ten' } },
  { name: 'a fractional number for an Int variable', query: 'query ($n: Int) { viewer { enrolledCourses(first: $n) { totalCount } } }', variables: { n: 1.5 } },
  { name: 'a required variable left out', query: 'query ($yes: Boolean!) { viewer { id @include(if: $yes) } }', variables: {} },
  { name: 'null for a required variable', query: 'query ($yes: Boolean!) { viewer { id @include(if: $yes) } }', variables: { yes: null } },
  { name: 'a variable the document does not declare', query: '{ viewer { id } }', variables: { unused: 1 } },
  { name: 'an operation name the document lacks', query: 'query One { viewer { id } }', operationName: 'Two' },
  { name: 'two operations and no name', query: 'query One { viewer { id } } query Two { viewer { name } }' },
];

/** Four connections of 100 courses each, every course with its sections and their lectures: over the cost limit. */
const COSTLY_BY_VARIABLE = `query ($n: Int) { viewer { ${['a', 'b', 'c', 'd'].map((alias) => `${alias}: enrolledCourses(first: $n) { nodes { sections { lectures { id title } } } }`).join(' ')} } }`;

/**
 * Documents the parse, the validation and the limits decide on (each breaking one kind of rule at most: a document
 * breaking the specified rules and the limits is answered with the first kind's errors only).
 */
const REFUSED: readonly Case[] = [
  { name: 'a syntax error', query: '{ viewer { id }' },
  { name: 'an unknown field', query: '{ viewer { shoeSize } }' },
  { name: 'an unknown fragment', query: '{ viewer { ...Missing } }' },
  { name: 'too many tokens', query: `{ viewer { ${'id '.repeat(LIMITS.maxTokens)}} }` },
  { name: 'nesting too deep', query: `{ __type(name: "Query") { ${'fields { type { '.repeat(7)}name${' } }'.repeat(7)} } }` },
  { name: 'a page size given as a variable that makes the cost too high', query: COSTLY_BY_VARIABLE, variables: { n: 100_000 } },
  { name: 'the same document with a page size that fits', query: COSTLY_BY_VARIABLE, variables: { n: 2 } },
];

const ACCEPT_HEADERS: ReadonlyArray<string | undefined> = [
  undefined,
  '*/*',
  'application/json',
  'application/graphql-response+json',
  'application/json; charset=utf8',
  'application/graphql-response+json; charset=utf-8, application/json',
  'text/html, application/*',
  'application/json; charset=latin1, application/graphql-response+json',
  'text/html',
];

type MemberHandlerOptions = HandlerOptions<undefined, undefined, Record<PropertyKey, unknown>>;

/** An answer as compared: status, content type, and the body as JSON (or null for a body-less refusal). */
interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

function answerOf([body, init]: HttpResponse): Answer {
  const headers = (init.headers ?? {}) as Record<string, string | undefined>;
  return { status: init.status, contentType: headers['content-type'] ?? null, body: body === null ? null : (JSON.parse(body) as unknown) };
}

/** Runs a graphql-http handler in process on a POST of `test` as JSON. */
async function handled(handle: Handler<undefined, undefined>, test: Case, accept: string | undefined = 'application/graphql-response+json'): Promise<Answer> {
  const body = JSON.stringify({ query: test.query, variables: test.variables, operationName: test.operationName });
  return answerOf(await handle({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) }, body, raw: undefined, context: undefined }));
}

for (const profile of VARIANT_PROFILES) {
  describeEachDatabase(`member GraphQL: each fast path answers as the libraries it stands in for [variant ${profile.name}]`, (scratch) => {
    const { schema } = buildMemberSchema(profile);
    let server: TestServer;
    let userId: number;
    let token: string;

    before(async () => {
      server = await startTestServer(scratch(), { variant: profile.name });
      const member = await makeUser(scratch().db, server.siteA, ['student'], 'Fast Path Member');
      await importSiteDocument(scratch().db, memberSchool(server.siteA, member, Date.now()));
      userId = member.id;
      token = await memberToken(scratch().db, server.siteA, member);
    });
    after(async () => server.stop());

    /** A fresh resolver context per request (loaders cache per request), holding both account scopes as the token does. */
    function memberContext(): Record<PropertyKey, unknown> {
      const member = new GraphQLContext({ db: scratch().db, site: server.siteA, userId });
      member.scopes = ACCOUNT_SCOPES;
      return member as unknown as Record<PropertyKey, unknown>;
    }

    /** Plain graphql-http and graphql-js with the member API's rules: its token limit, its depth and cost rule, its error format. */
    function plainHandler(options: Partial<MemberHandlerOptions> = {}): Handler<undefined, undefined> {
      return createHandler<undefined, undefined, Record<PropertyKey, unknown>>({
        schema,
        formatError,
        context: () => memberContext(),
        parse: (source) => parse(source, { maxTokens: LIMITS.maxTokens }),
        validationRules: (_req, args, rules) => [...rules, depthAndCostRule(args.variableValues ?? {})],
        ...options,
      });
    }

    describe('the endpoint against plain graphql-http with graphql-js execute', () => {
      for (const test of [...EXECUTED, ...REFUSED]) {
        it(`answers ${test.name} alike, the first time and from its caches`, async () => {
          const expected = await handled(plainHandler(), test);
          for (let round = 0; round < 2; round++) {
            const response = await fetch(`${server.siteA.origin}${profile.memberGraphql.path}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${token}` },
              body: JSON.stringify({ query: test.query, variables: test.variables, operationName: test.operationName }),
            });
            const answer: Answer = { status: response.status, contentType: response.headers.get('content-type'), body: (await response.json()) as unknown };
            expect(answer, `round ${round + 1}`).to.deep.equal(expected);
          }
        });
      }
    });

    describe('the document cache (memberDocuments().admit) against graphql-http parse and validate', () => {
      const documents = memberDocuments(schema);
      const cached = plainHandler({
        onSubscribe: (_req, params) => {
          const variables = params.variables ?? {};
          const document = documents.admit(params.query, variables);
          if (!('kind' in document)) return document;
          return { schema, document, variableValues: variables, operationName: params.operationName ?? null, contextValue: memberContext() };
        },
      });
      for (const test of [...REFUSED, ...EXECUTED]) {
        it(`admits or refuses ${test.name} alike, the first time and from the cache`, async () => {
          const expected = await handled(plainHandler(), test);
          expect(await handled(cached, test), 'first').to.deep.equal(expected);
          expect(await handled(cached, test), 'cached').to.deep.equal(expected);
        });
      }
    });

    describe('compiled execution (compiledExecutor) against graphql-js execute', () => {
      for (const leafValues of ['trusted', 'checked'] as const) {
        const compiled = plainHandler({ execute: compiledExecutor(schema, leafValues) });
        for (const test of EXECUTED) {
          it(`executes ${test.name} alike (${leafValues} leaf values)`, async () => {
            expect(await handled(compiled, test)).to.deep.equal(await handled(plainHandler({ execute }), test));
          });
        }
      }
    });

    describe("the success serialiser (successResponse) against graphql-http's own response", () => {
      for (const test of EXECUTED) {
        it(`serialises ${test.name} alike for every Accept header, or leaves it to graphql-http`, async () => {
          const result = (await execute({ schema, document: parse(test.query), variableValues: test.variables ?? {}, operationName: test.operationName ?? null, contextValue: memberContext() })) as ExecutionResult;
          const library = createHandler<undefined, undefined, Record<PropertyKey, unknown>>({ schema, formatError, onSubscribe: () => result });
          for (const accept of ACCEPT_HEADERS) {
            const fast = successResponse(accept, result);
            const expected = await library({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) }, body: '{"query":"{ __typename }"}', raw: undefined, context: undefined });
            if (fast === undefined) {
              // Declined: an answer with errors, or an Accept header graphql-http refuses, is graphql-http's own.
              expect(result.errors !== undefined || expected[1].status === 406, `declined for ${accept ?? 'no Accept'}`).to.equal(true);
              continue;
            }
            expect(fast[0], `body for ${accept ?? 'no Accept'}`).to.equal(expected[0]);
            expect(fast[1], `status and headers for ${accept ?? 'no Accept'}`).to.deep.equal(expected[1]);
          }
        });
      }
    });
  });
}
