/**
 * Generators for the REST admin API, built from its contract (openapi/admin.yaml): every operation's path with
 * existing, missing and hostile ids, its query parameters (and junk, and duplicates), If-Match values, Content-Types,
 * and bodies drawn from the operation's own schema (right and wrong types, missing and extra members), under
 * tokens of every kind: none, mangled, a member's, an operator's with read scopes only, an operator's with all.
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { parse } from 'yaml';
import { CONTRACT_FILE } from '../../../src/admin/contract.js';
import type { FuzzFixtures } from '../support/fixtures.js';
import type { FuzzRequest } from '../support/http-client.js';
import { authorizationValues, contentTypeFor, encodePairs, encodingStyle, hostileString, hugeString, jsonBody, jsonValue, NASTY_STRINGS, oddMethod, safeEncode, sometimes } from '../support/hostile.js';
import { abuseFor, applyAbuse, Choices, headerList } from './common.js';

export const ADMIN_BASE = '/api/admin/v1';

type Json = Record<string, unknown>;

interface Operation {
  operationId: string;
  method: string;
  path: string;
  pathParameters: string[];
  queryParameters: Array<{ name: string; schema: Json }>;
  bodySchema: Json | null;
  bodyTypes: string[];
}

function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function loadOperations(): { operations: Operation[]; document: Json } {
  const document = parse(fs.readFileSync(CONTRACT_FILE, 'utf8')) as Json;
  const resolve = (value: unknown): Json => {
    let current = value;
    for (let hops = 0; isRecord(current) && typeof current.$ref === 'string' && hops < 10; hops += 1) {
      const pointer = current.$ref.replace(/^#\//, '').split('/');
      current = pointer.reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), document);
    }
    return isRecord(current) ? current : {};
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(isRecord(document.paths) ? document.paths : {})) {
    if (!isRecord(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters.map(resolve) : [];
    for (const [method, raw] of Object.entries(item)) {
      if (!isRecord(raw) || typeof raw.operationId !== 'string') continue;
      const parameters = [...shared, ...(Array.isArray(raw.parameters) ? raw.parameters.map(resolve) : [])];
      const content = isRecord(raw.requestBody) ? resolve(raw.requestBody).content : undefined;
      const bodyTypes = isRecord(content) ? Object.keys(content) : [];
      const json = isRecord(content) ? (content['application/json'] ?? content['application/merge-patch+json']) : undefined;
      operations.push({
        operationId: raw.operationId,
        method: method.toUpperCase(),
        path,
        pathParameters: parameters.filter((parameter) => parameter.in === 'path').map((parameter) => String(parameter.name)),
        queryParameters: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => ({ name: String(parameter.name), schema: resolve(parameter.schema) })),
        bodySchema: isRecord(json) ? resolve(json.schema) : null,
        bodyTypes,
      });
    }
  }
  return { operations, document };
}

/** A value for a JSON Schema, mostly valid, sometimes of the wrong type; the choices drive (and shrink) it. */
class SchemaValues {
  constructor(
    private readonly document: Json,
    private readonly choices: Choices,
  ) {}

  private resolve(schema: unknown): Json {
    let current = schema;
    for (let hops = 0; isRecord(current) && typeof current.$ref === 'string' && hops < 10; hops += 1) {
      const pointer = current.$ref.replace(/^#\//, '').split('/');
      current = pointer.reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), this.document);
    }
    return isRecord(current) ? current : {};
  }

  wrong(): unknown {
    return this.choices.pick<unknown>([null, 'text', '', -1, 0, 1.5, 2 ** 53, true, [], {}, [null], { a: 1 }, 'x'.repeat(70_000), '\u0000', "' OR 1=1 --", '9'.repeat(40), '2025-13-45T99:99:99Z']);
  }

  value(raw: unknown, depth = 0): unknown {
    const { choices } = this;
    const schema = this.resolve(raw);
    if (choices.chance(3) || depth > 5) return this.wrong();
    const variants = (Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : null) as unknown[] | null;
    if (variants) return this.value(choices.pick(variants), depth + 1);
    if (Array.isArray(schema.enum)) return choices.pick(schema.enum as unknown[]);
    if ('const' in schema) return schema.const;
    const type = Array.isArray(schema.type) ? choices.pick(schema.type as string[]) : schema.type;
    switch (type) {
      case 'null':
        return null;
      case 'boolean':
        return choices.chance(50);
      case 'integer': {
        const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
        const max = typeof schema.maximum === 'number' ? schema.maximum : min + 1000;
        return choices.pick([min, max, min + 1, Math.floor((min + max) / 2), max + 1, min - 1]) ?? min;
      }
      case 'number':
        return choices.pick([0, 1.5, 100, -0.5, 1e20]);
      case 'string':
        return this.string(schema);
      case 'array': {
        const length = choices.below(4);
        return Array.from({ length }, () => this.value(schema.items, depth + 1));
      }
      default: {
        const properties = isRecord(schema.properties) ? schema.properties : {};
        const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
        const object: Json = {};
        for (const [name, property] of Object.entries(properties)) {
          if (required.has(name) ? choices.chance(92) : choices.chance(40)) object[name] = this.value(property, depth + 1);
        }
        if (choices.chance(6)) object[choices.pick(['id', 'createdAt', 'siteId', 'version', '__proto__', 'extra', 'constructor']) ?? 'extra'] = this.wrong();
        return object;
      }
    }
  }

  private string(schema: Json): unknown {
    const { choices } = this;
    const n = choices.below(1_000_000);
    if (choices.chance(8)) return choices.pick(NASTY_STRINGS);
    switch (schema.format) {
      case 'uri':
        return choices.pick([`https://cdn.example/fuzz-${n}.png`, 'not a uri', 'javascript:alert(1)', 'http://127.0.0.1:8765/callback']);
      case 'date-time':
        return choices.pick(['2026-01-01T00:00:00Z', '2030-12-31T23:59:59Z', '1970-01-01T00:00:00Z', 'yesterday', '2026-02-30T00:00:00Z']);
      case 'date':
        return choices.pick(['2026-01-01', '2026-02-30', '0000-00-00']);
      case 'email':
        return choices.pick([`fuzz.${n}@example.com`, 'not-an-email', 'a@b']);
      case 'hostname':
        return choices.pick(['app.example', 'localhost', '-bad-', 'a'.repeat(300)]);
      default:
        break;
    }
    if (typeof schema.pattern === 'string') {
      if (schema.pattern.includes('a-z0-9')) return choices.pick([`fuzz-${n}`, 'Bad Slug', '']);
      if (schema.pattern.includes('A-Z]{3}')) return choices.pick(['TWD', 'USD', 'usd', 'XXXX']);
      return choices.pick([`fuzz${n}`, '']);
    }
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : 200;
    return choices.pick([`Fuzz ${n}`, 'x'.repeat(max), 'x'.repeat(max + 1), '']);
  }
}

const PATH_ID_HOSTILE = ['0', '-1', '1.5', '1e3', '00001', '2147483648', '9'.repeat(40), 'abc', '%2F', '..', '%2e%2e', '%00', '%zz', '%', 'null', '[]', '{}', '1;DROP', "1'", '1%20OR%201%3D1', 'NaN', '0x10', '+1', '%201', '1%0A'];

const GRANT_ID_HOSTILE = ['p1', 'c1', 'A'.repeat(22), 'A'.repeat(64), 'A'.repeat(65), 'x'.repeat(5000), '%E2%80%AE', '%F0%9F%98%80', 'a%2Fb', 'a.b', '*', '%25', '%20', "'%20OR%20'1'%3D'1"];

export function adminRequests(fx: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const { operations, document } = loadOperations();
  const protectedUsers = new Set(fx.protectedUserIds.map(String));
  const tokens = [fx.tokens.operatorFull, fx.tokens.operatorRead, fx.tokens.memberFull, fx.tokens.otherSiteMember, fx.tokens.service, fx.spent.revokedAccessToken].filter((token) => token !== '');
  const token = fc.oneof(
    { arbitrary: fc.constant<'full' | 'read' | 'member' | 'none'>('full'), weight: 10 },
    { arbitrary: fc.constant<'full' | 'read' | 'member' | 'none'>('read'), weight: 4 },
    { arbitrary: fc.constantFrom<'member' | 'none'>('member', 'none'), weight: 2 },
  );
  const operation = fc.constantFrom(...operations);
  const pathValue = (parameter: string, choices: Choices): string => {
    // Grant ids are opaque strings: known ones (this site's and the other site's), then malformed and hostile ones.
    if (parameter === 'grantId') {
      const roll = choices.below(20);
      if (roll < 12 && fx.knownGrantIds.length > 0) return encodeURIComponent(choices.pick(fx.knownGrantIds) ?? '');
      if (roll < 15) return choices.pick(GRANT_ID_HOSTILE) ?? '';
      return choices.pick(PATH_ID_HOSTILE) ?? '0';
    }
    const known = parameter === 'clientId' ? fx.knownClientIds : (fx.knownIds[parameter] ?? []).map(String);
    const roll = choices.below(20);
    if (roll < 12 && known.length > 0) return encodeURIComponent(choices.pick(known) ?? '1');
    if (roll < 17) return String(1 + choices.below(60));
    return choices.pick(PATH_ID_HOSTILE) ?? '0';
  };
  const ifMatch = sometimes(fc.constantFrom('"v1"', '"v1"', '"v1"', '"v1"', '"v2"', '"v3"', '*', 'W/"v1"', '"v0"', '"v99999999999"', '"v1", "v2"', 'v1', '""', '"', `"v${'9'.repeat(30)}"`, 'x'.repeat(5000)), 60, null);
  const method = fc.oneof({ arbitrary: fc.constant<string | null>(null), weight: 14 }, { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), weight: 2 }, { arbitrary: oddMethod, weight: 1 });
  const unknownPath = sometimes(fc.oneof(fc.constantFrom('', '/', '/v2', '//school', '/school/', '/SCHOOL', '/school/../school', '/courses/1/../../school', '/courses/1/unknown', '/courses/%2e%2e/1', '/openapi.json', '/school%00', '/school;x=1', `/courses/${'1/'.repeat(500)}`), hostileString.map((value) => `/${safeEncode(value).slice(0, 300)}`)), 8, null);
  // "schema" is a body from the operation's schema, or none for an operation without one.
  const body = fc.oneof({ arbitrary: fc.constant<'schema' | 'random' | 'broken' | 'none' | 'bytes'>('schema'), weight: 17 }, { arbitrary: fc.constantFrom<'random' | 'broken' | 'none' | 'bytes'>('random', 'broken', 'none', 'bytes'), weight: 3 });
  return fc
    .record({
      operation,
      token,
      mangled: sometimes(authorizationValues(tokens), 12, null),
      choices: fc.array(fc.nat({ max: 1_000_000 }), { minLength: 1, maxLength: 80 }),
      query: sometimes(fc.array(fc.tuple(fc.nat(), hostileString), { minLength: 1, maxLength: 3 }), 15, [] as Array<[number, string]>),
      style: encodingStyle,
      ifMatch,
      method,
      unknownPath,
      body,
      randomBody: jsonBody(jsonValue),
      bytes: fc.oneof(hugeString.map((text) => Buffer.from(text)), fc.uint8Array({ maxLength: 256 }).map((array) => Buffer.from(array))),
      contentType: contentTypeFor('application/json'),
      abuse: abuseFor(fx),
    })
    .map((drawn) => {
      const { operation: op, choices: numbers, query, style, ifMatch: tag, unknownPath: stray, abuse } = drawn;
      const choices = new Choices(numbers);
      // The beta switch and open registration stay as set up: with open registration on, any https client_id would
      // make the server fetch documents from the Internet. Those writes get the read-only token.
      let which = drawn.token;
      if (which === 'full' && op.operationId === 'updateMcpConnections') which = 'read';
      let path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
        let value = pathValue(name, choices);
        if (name === 'userId' && protectedUsers.has(value)) value = String(Number(value) + 1000);
        return value;
      });
      if (stray !== null) path = stray;
      const queryPairs: Array<[string, string]> = [];
      for (const parameter of op.queryParameters) {
        if (!choices.chance(30)) continue;
        const value = new SchemaValues(document, choices).value(parameter.schema);
        queryPairs.push([parameter.name, typeof value === 'string' ? value : JSON.stringify(value) ?? '']);
      }
      for (const [index, value] of query) queryPairs.push([op.queryParameters[index % Math.max(1, op.queryParameters.length)]?.name ?? 'junk', value]);
      const target = `${ADMIN_BASE}${path}${queryPairs.length > 0 ? `?${encodePairs(queryPairs, style)}` : ''}`;
      let bytes: Buffer | undefined;
      switch (drawn.body) {
        case 'schema':
          if (op.bodySchema !== null) bytes = Buffer.from(JSON.stringify(new SchemaValues(document, choices).value(op.bodySchema)) ?? 'null');
          break;
        case 'random':
        case 'broken':
          bytes = drawn.randomBody;
          break;
        case 'bytes':
          bytes = drawn.bytes;
          break;
        default:
          break;
      }
      const contentType = bytes === undefined ? null : op.bodyTypes.length > 1 && op.bodyTypes.every((type) => !type.includes('json')) ? (choices.pick(op.bodyTypes) ?? drawn.contentType) : drawn.contentType;
      const tokenValue = which === 'full' ? fx.tokens.operatorFull : which === 'read' ? fx.tokens.operatorRead : which === 'member' ? fx.tokens.memberFull : null;
      const authorization = drawn.mangled ?? (tokenValue === null ? null : `Bearer ${tokenValue}`);
      const verb = drawn.method ?? op.method;
      const request = applyAbuse(
        fx,
        {
          family: 'admin',
          route: stray === null ? `${op.method} ${ADMIN_BASE}${op.path}` : `${verb} ${ADMIN_BASE}/(unknown path)`,
          label: `${op.operationId}${drawn.method === null ? '' : ` as ${verb}`}, ${drawn.mangled === null ? `${which} token` : 'mangled Authorization'}, ${drawn.body} body`,
          method: verb,
          target,
          headers: headerList([
            ['Authorization', authorization],
            ['Content-Type', contentType],
            ['If-Match', tag],
            ['Accept', 'application/json, application/problem+json'],
          ]),
          body: bytes,
          writes: 'on-success',
        },
        abuse,
      );
      // No spelling of the full token (a mangled header, header abuse) may reach the beta switch either.
      if (op.operationId !== 'updateMcpConnections') return request;
      return { ...request, headers: request.headers.filter(([name, value]) => name.toLowerCase() !== 'authorization' || !value.includes(fx.tokens.operatorFull)) };
    });
}
