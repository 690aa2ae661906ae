/**
 * Generators for the member GraphQL API. Documents are built from the served schema by a "choice sequence": a list of
 * random numbers that the builder reads to pick operations, fields, aliases, arguments (of the right type or not),
 * fragments, directives and variables. Shrinking the list shrinks the document, so a failing query comes back small.
 * Next to them: alias bombs, deep nesting, introspection towers, fragment cycles, token floods, wrong variable types,
 * batches and broken HTTP framing of the request itself.
 */
import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { buildMemberSchema } from '../../../src/graphql/schema.js';
import type { FuzzFixtures } from '../support/fixtures.js';
import type { FuzzRequest } from '../support/http-client.js';
import { authorizationValues, contentTypeFor, deepJsonText, encodePairs, jsonBody, jsonValue, oddMethod, NASTY_STRINGS, sometimes } from '../support/hostile.js';
import { abuseFor, applyAbuse, Choices, headerList } from './common.js';
import { variantProfile } from '../../../src/variant.js';

export const GRAPHQL_PATH = '/member/graphql';

const NAMES = ['viewer', 'id', 'name', 'email', 'node', 'nodes', 'edges', 'cursor', 'select', 'user', 'password', '__typename', '__schema', '__type', 'constructor', '__proto__', 'a'];

function stringLiteral(value: string): string {
  return JSON.stringify(value);
}

/** A literal for an input type: mostly the right type, sometimes another. */
function literalFor(type: GraphQLInputType, choices: Choices, depth = 0): string {
  if (choices.chance(12) || depth > 4) return wrongLiteral(choices);
  if (isNonNullType(type)) return literalFor(type.ofType, choices, depth);
  if (isListType(type)) {
    const items = choices.below(4);
    return `[${Array.from({ length: items }, () => literalFor(type.ofType, choices, depth + 1)).join(', ')}]`;
  }
  const named = getNamedType(type);
  if (isEnumType(named)) return choices.pick(named.getValues())?.name ?? 'UNKNOWN';
  if (isInputObjectType(named)) {
    const fields = Object.values(named.getFields()).filter(() => choices.chance(60));
    return `{${fields.map((field) => `${field.name}: ${literalFor(field.type, choices, depth + 1)}`).join(', ')}}`;
  }
  if (isScalarType(named)) {
    switch (named.name) {
      case 'Int':
        return String(choices.pick([0, 1, 5, 20, 50, 100, 101, 1000, -1, 2147483647, 2147483648, -2147483649]) ?? 1);
      case 'Float':
        return String(choices.pick([0, 1.5, -1e10, 1e308]) ?? 0);
      case 'Boolean':
        return choices.chance(50) ? 'true' : 'false';
      case 'ID':
      case 'String':
        return stringLiteral(choices.pick([...NASTY_STRINGS, 'YXJyYXljb25uZWN0aW9uOjA=', 'Q291cnNlOjE=', '1', 'abc']) ?? '');
      default:
        return choices.chance(50) ? String(choices.pick([0, 1700000000, -1, 99999999999999]) ?? 0) : stringLiteral(choices.pick(['2025-01-01T00:00:00Z', 'yesterday', '']) ?? '');
    }
  }
  return 'null';
}

function wrongLiteral(choices: Choices): string {
  return choices.pick(['null', '"text"', '12', '-1', '1.5', 'true', '[1, "a"]', '{a: 1}', 'UNKNOWN_ENUM', '$undeclared', '"\\u0000"', `"${'x'.repeat(5000)}"`, '99999999999999999999999']) ?? 'null';
}

interface Built {
  document: string;
  variables: Record<string, unknown>;
  operationName: string | null;
}

class DocumentBuilder {
  private readonly fragments: string[] = [];
  private readonly variableDefinitions: string[] = [];
  private readonly variables: Record<string, unknown> = {};

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly choices: Choices,
  ) {}

  private argumentsFor(args: readonly GraphQLArgument[]): string {
    const { choices } = this;
    const given: string[] = [];
    for (const arg of args) {
      // Required arguments are nearly always given (else validation stops the document before it runs).
      if (!choices.chance(isNonNullType(arg.type) ? 92 : 35)) continue;
      if (choices.chance(20)) {
        // As a variable, declared with the right type or a wrong one, and given a value of any type.
        const name = `v${this.variableDefinitions.length}`;
        const declared = choices.chance(75) ? String(arg.type) : (choices.pick(['Int', 'String!', '[Int]', 'Boolean', 'ID!', 'NotAType']) ?? 'Int');
        this.variableDefinitions.push(`$${name}: ${declared}`);
        this.variables[name] = choices.pick<unknown>([1, 50, 100, 1000, -5, 'x', null, true, [1], { a: 1 }, 1e308, '1', '9'.repeat(30)]);
        given.push(`${arg.name}: $${name}`);
      } else given.push(`${arg.name}: ${literalFor(arg.type, choices)}`);
    }
    if (choices.chance(5)) given.push(`${choices.pick(NAMES) ?? 'x'}: ${wrongLiteral(choices)}`);
    return given.length > 0 ? `(${given.join(', ')})` : '';
  }

  private directives(): string {
    const { choices } = this;
    if (!choices.chance(8)) return '';
    return ` ${choices.pick(['@include(if: true)', '@skip(if: false)', '@skip(if: "yes")', '@include', '@deprecated', '@unknown', '@include(if: true) @include(if: false)', '@requiresScope(scopes: ["x"])']) ?? ''}`;
  }

  /** A selection set on a composite type, `depth` levels deep at most. */
  selection(type: GraphQLNamedType, depth: number): string {
    const { choices } = this;
    if (isUnionType(type)) {
      const members = type.getTypes();
      return `{ __typename ${members.filter(() => choices.chance(50)).map((member) => `... on ${member.name} ${this.selection(member, depth - 1)}`).join(' ')} }`;
    }
    if (!isObjectType(type) && !isInterfaceType(type)) return '';
    const fields = Object.values((type as GraphQLObjectType).getFields()) as Array<GraphQLField<unknown, unknown>>;
    const count = 1 + choices.below(Math.min(fields.length, 6));
    const parts: string[] = [];
    for (let i = 0; i < count && !(choices.exhausted && i > 0); i += 1) {
      if (choices.chance(4)) {
        parts.push(choices.pick(NAMES) ?? '__typename');
        continue;
      }
      if (choices.chance(4) && this.fragments.length < 6) {
        const name = `F${this.fragments.length}`;
        const cyclic = choices.chance(15);
        this.fragments.push(`fragment ${name} on ${type.name} { __typename${cyclic ? ` ...${name}` : ''} }`);
        parts.push(`...${name}`);
        continue;
      }
      if (choices.chance(3)) parts.push(`... on ${choices.chance(80) ? type.name : 'Query'} { __typename }`);
      const field = fields[choices.below(fields.length)];
      if (!field) continue;
      const alias = choices.chance(10) ? `${choices.pick(['a', 'b', 'alias', '__typename', 'id', '_1']) ?? 'a'}${choices.below(3)}: ` : '';
      const named = getNamedType(field.type);
      const head = `${alias}${field.name}${this.argumentsFor(field.args)}${this.directives()}`;
      if (isLeafType(named)) parts.push(choices.chance(3) ? `${head} { id }` : head);
      else if (depth <= 0 || choices.chance(3)) parts.push(choices.chance(70) ? `${head} { __typename }` : head);
      else parts.push(`${head} ${this.selection(named, depth - 1)}`);
    }
    return `{ ${parts.join(' ')} }`;
  }

  build(): Built {
    const { choices, schema } = this;
    const mutationType = schema.getMutationType();
    const queryType = schema.getQueryType();
    const kind = choices.below(10);
    let operation: string;
    let root: GraphQLNamedType | null | undefined;
    if (kind < 6) [operation, root] = ['query', queryType];
    else if (kind < 9) [operation, root] = ['mutation', mutationType];
    else [operation, root] = ['subscription', queryType];
    const body = this.selection(root ?? (queryType as GraphQLNamedType), 1 + choices.below(8));
    const anonymous = operation === 'query' && this.variableDefinitions.length === 0 && choices.chance(40);
    const operationName = choices.chance(70) ? 'Fuzz' : null;
    const header = anonymous ? '' : `${operation}${operationName ? ` ${operationName}` : ''}${this.variableDefinitions.length > 0 ? `(${this.variableDefinitions.join(', ')})` : ''} `;
    const extra = choices.chance(5) ? ' query Other { __typename }' : '';
    return {
      document: `${header}${body}${extra}${this.fragments.length > 0 ? ` ${this.fragments.join(' ')}` : ''}`,
      variables: this.variables,
      operationName: choices.chance(10) ? (choices.pick(['Other', 'Missing', '']) ?? null) : operationName,
    };
  }
}

/** Documents meant to hurt: too deep, too wide, too many tokens, cycles, introspection towers. */
function hostileDocuments(): fc.Arbitrary<Built> {
  const plain = (document: string): Built => ({ document, variables: {}, operationName: null });
  return fc.oneof(
    fc.integer({ min: 2, max: 3000 }).map((count) => plain(`{ ${Array.from({ length: count }, (_, i) => `a${i}: viewer { name }`).join(' ')} }`)),
    fc.integer({ min: 2, max: 200 }).map((count) => plain(`{ viewer { ${Array.from({ length: count }, (_, i) => `c${i}: enrolledCourses(first: 100) { nodes { sections { lectures { title } } } }`).join(' ')} } }`)),
    fc.integer({ min: 5, max: 400 }).map((depth) => plain(`{ viewer { ${'enrolledCourses { nodes { '.repeat(depth)}id${' } }'.repeat(depth)} } }`)),
    fc.integer({ min: 5, max: 300 }).map((depth) => plain(`{ __schema { types { ${'fields { type { ofType { '.repeat(depth)}name${' } } }'.repeat(depth)} } } }`)),
    fc.integer({ min: 100, max: 50_000 }).map((count) => plain(`{ viewer { ${'name '.repeat(count)}} }`)),
    fc.integer({ min: 2, max: 50 }).map((count) => plain(`query { viewer { ...F0 } } ${Array.from({ length: count }, (_, i) => `fragment F${i} on Viewer { name ...F${(i + 1) % count} }`).join(' ')}`)),
    fc.integer({ min: 2, max: 20 }).map((count) => plain(`query { viewer { ...F0 } } ${Array.from({ length: count }, (_, i) => `fragment F${i} on Viewer { ${i + 1 < count ? `a: viewer_dummy ...F${i + 1} ...F${i + 1}` : 'name'} }`).join(' ')}`)),
    fc.constantFrom(
      plain(''),
      plain(' '),
      plain('{'),
      plain('}'),
      plain('query'),
      plain('{ viewer }'),
      plain('{ viewer { name } } { viewer { name } }'),
      plain('query A { viewer { name } } query A { viewer { email } }'),
      plain('mutation { markAllNotificationsRead }'),
      plain('subscription { viewer { name } }'),
      plain('{ __schema { queryType { name } } }'),
      plain('{ __type(name: "Viewer") { fields { name } } }'),
      plain('{ viewer { name @include(if: $undeclared) } }'),
      plain('{ viewer { ... on Viewer { ... on Viewer { ... on Viewer { name } } } } }'),
      plain('{ viewer { enrolledCourses(first: -1) { nodes { id } } } }'),
      plain('{ viewer { enrolledCourses(first: 100, last: 100) { nodes { id } } } }'),
      plain('{ viewer { enrolledCourses(after: "not-a-cursor") { nodes { id } } } }'),
      plain('{ viewer { enrolledCourses(after: "YXJyYXljb25uZWN0aW9uOi0x") { nodes { id } } } }'),
      plain('{ viewer { consultingMeetings(filter: { startedAfter: -99999999999, startedBefore: 99999999999, state: [] }) { nodes { id } } } }'),
      plain('{ viewer { payments(first: 2147483647) { nodes { id } } } }'),
      plain('"""doc""" query { viewer { name } }'),
      plain('# comment only'),
      plain('\u0000'),
      plain('{ viewer { name(unknown: 1) } }'),
      plain(`{ viewer { name } } ${'#'.repeat(60_000)}`),
      plain(`{ viewer { name @skip(if: false) ${'@skip(if: false) '.repeat(2000)} } }`),
      plain(`query Q(${Array.from({ length: 500 }, (_, i) => `$v${i}: Int`).join(', ')}) { viewer { name } }`),
      plain(`{ viewer { enrolledCourses(first: ${'9'.repeat(400)}) { nodes { id } } } }`),
      plain(`{ viewer { name } }${' '.repeat(70_000)}`),
    ),
  );
}

/** The request body as JSON: an object, sometimes a batch or a value of the wrong type in place of a member. */
function requestJson(built: Built, choice: number, wrongValue: unknown): unknown {
  const base: Record<string, unknown> = { query: built.document };
  if (Object.keys(built.variables).length > 0 || choice % 5 === 1) base.variables = built.variables;
  if (built.operationName !== null) base.operationName = built.operationName;
  switch (choice % 12) {
    case 3:
      return [base, base];
    case 4:
      return { ...base, query: wrongValue };
    case 5:
      return { ...base, variables: wrongValue };
    case 6:
      return { ...base, operationName: wrongValue };
    case 7:
      return { ...base, extensions: { persistedQuery: { version: 1, sha256Hash: 'x'.repeat(64) } } };
    case 8:
      return { ...base, query: undefined, id: 'persisted-1' };
    case 9:
      return { ...base, extra: wrongValue };
    default:
      return base;
  }
}

export function graphqlRequests(fx: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const { schema } = buildMemberSchema(variantProfile('A'));
  const writeTokens = new Set([fx.tokens.memberFull]);
  const tokens = [fx.tokens.memberFull, fx.tokens.memberRead, fx.tokens.memberIdentity, fx.tokens.operatorFull, fx.tokens.otherSiteMember, fx.spent.revokedAccessToken].filter((token) => token !== '');
  const built = fc.oneof({ arbitrary: fc.array(fc.nat({ max: 10_000 }), { minLength: 1, maxLength: 120 }).map((values) => new DocumentBuilder(schema, new Choices(values)).build()), weight: 6 }, { arbitrary: hostileDocuments(), weight: 2 });
  const token = fc.oneof({ arbitrary: fc.constantFrom(fx.tokens.memberFull, fx.tokens.memberRead), weight: 8 }, { arbitrary: fc.constantFrom(...tokens), weight: 2 }, { arbitrary: fc.constant(null), weight: 1 });
  const authorization = fc.oneof({ arbitrary: token.map((value) => (value === null ? null : `Bearer ${value}`)), weight: 10 }, { arbitrary: authorizationValues(tokens), weight: 2 });
  const accept = sometimes(fc.constantFrom('application/graphql-response+json', 'application/json', 'application/graphql-response+json, application/json', '*/*', 'text/html', 'application/json; charset=latin1', 'application/xml', 'application/graphql-response+json;q=0'), 25, null);
  const transport = fc.oneof({ arbitrary: fc.constant('post-json'), weight: 10 }, { arbitrary: fc.constant('get-query'), weight: 2 }, { arbitrary: fc.constantFrom('post-graphql', 'post-form', 'post-deep', 'post-broken', 'odd-method'), weight: 2 });
  return fc
    .record({ built, authorization, accept, transport, choice: fc.nat(), wrong: jsonValue, contentType: contentTypeFor('application/json'), brokenBody: jsonBody(jsonValue), deep: deepJsonText, method: oddMethod, abuse: abuseFor(fx) })
    .map(({ built: doc, authorization: auth, accept: acceptValue, transport: how, choice, wrong, contentType, brokenBody, deep, method, abuse }) => {
      let verb = 'POST';
      let target = GRAPHQL_PATH;
      let body: Buffer | undefined;
      let type: string | null = contentType;
      const json = requestJson(doc, choice, wrong);
      switch (how) {
        case 'get-query': {
          verb = 'GET';
          const pairs: Array<[string, string]> = [['query', doc.document]];
          if (Object.keys(doc.variables).length > 0) pairs.push(['variables', JSON.stringify(doc.variables)]);
          if (doc.operationName !== null) pairs.push(['operationName', doc.operationName]);
          if (choice % 4 === 0) pairs.push(['query', '{ viewer { email } }']);
          target = `${GRAPHQL_PATH}?${encodePairs(pairs, choice % 7 === 0 ? 'broken-percent' : 'standard')}`;
          type = null;
          break;
        }
        case 'post-graphql':
          body = Buffer.from(doc.document);
          type = 'application/graphql';
          break;
        case 'post-form':
          body = Buffer.from(encodePairs([['query', doc.document]], 'standard'));
          type = 'application/x-www-form-urlencoded';
          break;
        case 'post-deep':
          body = Buffer.from(deep);
          break;
        case 'post-broken':
          body = brokenBody;
          break;
        case 'odd-method':
          verb = method;
          body = Buffer.from(JSON.stringify(json) ?? '');
          break;
        default:
          body = Buffer.from(JSON.stringify(json) ?? 'null');
      }
      const usesWriteToken = auth !== null && [...writeTokens].some((value) => auth === `Bearer ${value}`);
      return applyAbuse(
        fx,
        {
          family: 'graphql',
          route: `POST ${GRAPHQL_PATH}`,
          label: `${how}, ${auth === null ? 'no token' : auth.startsWith('Bearer ') && tokens.some((value) => auth === `Bearer ${value}`) ? 'a real token' : 'a mangled Authorization'}, ${doc.document.length} characters of document`,
          method: verb,
          target,
          headers: headerList([
            ['Authorization', auth],
            ['Content-Type', type],
            ['Accept', acceptValue],
          ]),
          body,
          // Only the account:write token can run a mutation that may write (notification subscriptions).
          writes: usesWriteToken ? 'on-success' : 'never',
        },
        abuse,
      );
    });
}
