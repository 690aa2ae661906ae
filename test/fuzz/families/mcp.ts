/**
 * Generators for /mcp, both protocol eras:
 *
 * - 2025-era messages (no `_meta` envelope): JSON-RPC requests with random and real methods, tool calls with
 *   arguments of the right and wrong types, the resource, prompt and completion methods, `initialize`, batches,
 *   notifications, posted responses, missing and odd ids, and the transport's headers (Accept, Content-Type,
 *   MCP-Protocol-Version, Origin) right and wrong;
 * - 2026-07-28 requests: `server/discover` and every method the endpoint serves (and some it removed or never had),
 *   each with the `_meta` envelope (right, missing a key, of the wrong type, naming another revision, deeply nested)
 *   and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers (matching the body, missing, disagreeing, broken
 *   Base64), `resources/list` cursors (well-formed and forged), resource URIs from the catalogue's own templates
 *   (this school's, another school's, path tricks, hostile values), prompt names and arguments, completion references
 *   and arguments; anonymous, with member tokens of full and narrow scope, and with other tokens.
 *
 * The resources, templates and prompts come from the catalogue itself, so what is added to it is fuzzed too.
 */
import fc from 'fast-check';
import { PROMPTS } from '../../../src/mcp/prompts/index.js';
import { RESOURCES } from '../../../src/mcp/resources/index.js';
import { encodeNodeId } from '../../../src/member/ids.js';
import type { FuzzFixtures } from '../support/fixtures.js';
import type { FuzzRequest } from '../support/http-client.js';
import { authorizationValues, contentTypeFor, hostileString, jsonBody, jsonValue, oddMethod, sometimes } from '../support/hostile.js';
import { abuseFor, applyAbuse, headerList } from './common.js';

const TOOLS = [
  'get_school_profile',
  'search_courses',
  'get_course_syllabus',
  'list_upcoming_events',
  'list_consulting_services',
  'list_my_courses',
  'get_my_course_syllabus',
  'list_my_meetings',
  'list_my_payments',
  'list_my_notifications',
  'mark_notification_read',
  'mark_all_notifications_read',
];

/** The revision whose requests carry the envelope. */
const MODERN = '2026-07-28';
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const ENVELOPE = { [PROTOCOL_VERSION_KEY]: MODERN, [CLIENT_CAPABILITIES_KEY]: {}, [CLIENT_INFO_KEY]: { name: 'fuzz', version: '1' } };

const METHODS = ['tools/call', 'tools/list', 'initialize', 'ping', 'notifications/initialized', 'notifications/cancelled', 'resources/list', 'resources/read', 'resources/templates/list', 'prompts/list', 'prompts/get', 'completion/complete', 'server/discover', 'logging/setLevel', 'resources/subscribe', 'subscriptions/listen', 'sampling/createMessage', 'roots/list', 'tools/call ', 'TOOLS/LIST', ''];
/** Methods of the 2025 era that 2026-07-28 removed, and ones no server has: answered as unknown there. */
const MODERN_STRANGERS = ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'sampling/createMessage', 'roots/list', 'elicitation/create', 'school/enroll', 'TOOLS/LIST'];

type Call = { method: unknown; params: unknown };

/**
 * JSON nested far deeper than JSON.stringify can recurse, kept as text: it sits anywhere in a message as a value and
 * `serialize` splices it in.
 */
class DeepJson {
  constructor(readonly text: string) {}
}

const deepValue = fc.tuple(fc.constantFrom(64, 500, 2000, 10_000), fc.constantFrom('array', 'object')).map(([depth, shape]) => new DeepJson(shape === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));

/** JSON.stringify, with every DeepJson spliced in as the JSON text it holds. */
function serialize(value: unknown): string {
  const deep: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (!(item instanceof DeepJson)) return item;
    deep.push(item.text);
    return `\u0001deep${deep.length - 1}\u0001`;
  }) ?? 'null';
  return deep.reduce((result, piece, index) => result.replace(`"\\u0001deep${index}\\u0001"`, () => piece), text);
}

/** Plain values of the wrong type for a string parameter, nesting included. */
const notAString = fc.oneof({ arbitrary: jsonValue.filter((value) => typeof value !== 'string'), weight: 4 }, { arbitrary: deepValue, weight: 1 });

function toolArguments(fx: FuzzFixtures): fc.Arbitrary<unknown> {
  const slugs = fx.courseSlugs.length > 0 ? fx.courseSlugs : ['no-course'];
  const notifications = fx.notificationIds.length > 0 ? fx.notificationIds : ['Tm90aWZpY2F0aW9uOjE='];
  const plausible = fc.record(
    {
      query: fc.oneof({ arbitrary: fc.constantFrom('typography', 'design', 'studio', ''), weight: 3 }, { arbitrary: hostileString, weight: 1 }),
      first: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 50 }), weight: 6 }, { arbitrary: fc.constantFrom<unknown>(100, 101, 0, -1, 1.5, 2 ** 53, '10'), weight: 1 }, { arbitrary: jsonValue, weight: 1 }),
      cursor: fc.oneof(hostileString, fc.constantFrom('YXJyYXljb25uZWN0aW9uOjA=', 'Q291cnNlOjE=')),
      course: fc.oneof({ arbitrary: fc.constantFrom<unknown>(...slugs), weight: 4 }, { arbitrary: fc.constantFrom<unknown>('1', 'Q291cnNlOjE=', 'no-such-course'), weight: 1 }, { arbitrary: hostileString, weight: 1 }, { arbitrary: jsonValue, weight: 1 }),
      when: fc.oneof({ arbitrary: fc.constantFrom<unknown>('upcoming', 'past'), weight: 5 }, { arbitrary: fc.constantFrom<unknown>('future', 'PAST'), weight: 1 }, { arbitrary: jsonValue, weight: 1 }),
      unreadOnly: fc.oneof({ arbitrary: fc.boolean(), weight: 5 }, { arbitrary: jsonValue, weight: 1 }),
      kinds: fc.oneof({ arbitrary: fc.constant<unknown>(['ANNOUNCEMENT']), weight: 4 }, { arbitrary: fc.constant<unknown>(['announcement']), weight: 1 }, { arbitrary: jsonValue, weight: 1 }),
      id: fc.oneof({ arbitrary: fc.constantFrom<unknown>(...notifications), weight: 3 }, { arbitrary: hostileString, weight: 1 }, { arbitrary: jsonValue, weight: 1 }),
    },
    { requiredKeys: [] },
  );
  return fc.oneof({ arbitrary: plausible, weight: 10 }, { arbitrary: jsonValue, weight: 1 }, { arbitrary: fc.dictionary(hostileString.map((key) => key.slice(0, 50)), jsonValue, { maxKeys: 4 }), weight: 1 }, { arbitrary: deepValue.map((value) => ({ query: value })), weight: 1 });
}

function toolCall(fx: FuzzFixtures): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      name: fc.oneof({ arbitrary: fc.constantFrom<unknown>(...TOOLS), weight: 10 }, { arbitrary: hostileString, weight: 1 }, { arbitrary: jsonValue, weight: 1 }),
      arguments: sometimes(toolArguments(fx), 90, undefined),
      _meta: sometimes(fc.oneof(fc.constant<unknown>({ progressToken: 1 }), jsonValue), 5, undefined),
    })
    .map(({ name, arguments: args, _meta }) => ({ name, ...(args === undefined ? {} : { arguments: args }), ...(_meta === undefined ? {} : { _meta }) }));
}

// --- the catalogue: resources, templates, prompts --------------------------------------------------------------

const PARAMETER = /^\{([a-z][a-zA-Z0-9_]*)\}$/;

/** The template parameters of a resource path (`/courses/{slug}/syllabus` → slug). */
function parametersOf(path: string): string[] {
  return path
    .split('/')
    .map((segment) => PARAMETER.exec(segment)?.[1])
    .filter((name): name is string => name !== undefined);
}

/** A resource URI from the catalogue's paths, at `host`, with `value` for every template parameter. */
function uriAt(scheme: string, host: string, path: string, value: (name: string) => string): string {
  return `${scheme}://${host}${path
    .split('/')
    .map((segment) => {
      const name = PARAMETER.exec(segment)?.[1];
      return name === undefined ? segment : encodeURIComponent(value(name));
    })
    .join('/')}`;
}

/** Values for template parameters and prompt arguments: real slugs and ids, near misses, hostile strings. */
function parameterValue(fx: FuzzFixtures): fc.Arbitrary<string> {
  const slugs = fx.courseSlugs.length > 0 ? fx.courseSlugs : ['no-course'];
  const meetings = (fx.knownIds.meetingId ?? []).map((id) => encodeNodeId('ConsultingMeeting', id));
  return fc.oneof(
    { arbitrary: fc.constantFrom(...slugs), weight: 6 },
    { arbitrary: fc.constantFrom(...slugs).map((slug) => slug.toUpperCase()), weight: 1 },
    { arbitrary: fc.constantFrom(...(meetings.length > 0 ? meetings : ['Q29uc3VsdGluZ01lZXRpbmc6MQ=='])), weight: 2 },
    { arbitrary: fc.constantFrom('1', '0', '-1', '5', '40', '1e9', 'no-such-course', '..', '.', '%2F', 'a/b'), weight: 2 },
    { arbitrary: hostileString, weight: 3 },
  );
}

/** Resource URIs: the catalogue's own (fixed and filled templates), at this school, at another, and broken ones. */
function resourceUri(fx: FuzzFixtures): fc.Arbitrary<unknown> {
  const paths = RESOURCES.map((resource) => ({ scheme: resource.scheme, path: resource.spec.path }));
  const known = paths.length > 0 ? paths : [{ scheme: 'school', path: '/profile' }];
  const filled = fc.tuple(fc.constantFrom(...known), parameterValue(fx)).map(([{ scheme, path }, value]) => ({ scheme, path, value }));
  return fc.oneof(
    { arbitrary: filled.map(({ scheme, path, value }) => uriAt(scheme, fx.siteHost, path, () => value)), weight: 10 },
    { arbitrary: filled.map(({ scheme, path, value }) => uriAt(scheme, fx.otherSiteHost, path, () => value)), weight: 2 },
    {
      arbitrary: fc.tuple(filled, fc.constantFrom('upper-host', 'query', 'hash', 'dot-segments', 'other-scheme', 'no-host', 'userinfo', 'double-slash', 'raw-template', 'broken-percent')).map(([{ scheme, path, value }, trick]) => {
        const uri = uriAt(scheme, fx.siteHost, path, () => value);
        switch (trick) {
          case 'upper-host':
            return uri.replace(fx.siteHost, fx.siteHost.toUpperCase());
          case 'query':
            return `${uri}?member=1`;
          case 'hash':
            return `${uri}#me`;
          case 'dot-segments':
            return uri.replace(/\/([^/]*)$/, '/../me/$1');
          case 'other-scheme':
            return uri.replace(/^[a-z]+:/, scheme === 'ui' ? 'school:' : 'https:');
          case 'no-host':
            return `${scheme}:///${path.slice(1)}`;
          case 'userinfo':
            return uri.replace('://', `://${fx.otherSiteHost}@`);
          case 'double-slash':
            return uri.replace(fx.siteHost, `${fx.siteHost}/`);
          case 'raw-template':
            return `${scheme}://${fx.siteHost}${path}`;
          default:
            return `${uri}%E0%A4%A`;
        }
      }),
      weight: 3,
    },
    { arbitrary: hostileString, weight: 2 },
    { arbitrary: notAString, weight: 1 },
  );
}

/** `resources/list` cursors: the server's own format (an index and a position), forged and broken ones. */
const listCursor: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.tuple(fc.integer({ min: -2, max: 12 }), fc.oneof(fc.constant<string | null>(null), hostileString.map((value) => value.slice(0, 200)))).map(([index, after]) => Buffer.from(JSON.stringify([index, after])).toString('base64url')), weight: 5 },
  { arbitrary: jsonValue.map((value) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url')), weight: 2 },
  { arbitrary: hostileString, weight: 2 },
  { arbitrary: notAString, weight: 1 },
);

function promptNames(): string[] {
  return PROMPTS.length > 0 ? PROMPTS.map((prompt) => prompt.spec.name) : ['weekly_study_plan'];
}

/** A prompt's arguments: its own names with plausible or hostile values, unknown names, values that are not strings. */
function promptArguments(fx: FuzzFixtures, name: unknown): fc.Arbitrary<unknown> {
  const names = PROMPTS.find((prompt) => prompt.spec.name === name)?.spec.arguments.map((argument) => argument.name) ?? [];
  const known = names.length > 0 ? fc.constantFrom(...names) : hostileString;
  return fc.oneof(
    { arbitrary: fc.dictionary(known, parameterValue(fx), { maxKeys: Math.max(1, names.length) }), weight: 10 },
    { arbitrary: fc.dictionary(fc.oneof(known, hostileString.map((key) => key.slice(0, 50))), parameterValue(fx), { maxKeys: 4 }), weight: 2 },
    { arbitrary: fc.dictionary(known, notAString, { minKeys: 1, maxKeys: 2 }), weight: 1 },
    { arbitrary: jsonValue, weight: 1 },
  );
}

function promptName(): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: fc.constantFrom<unknown>(...promptNames()), weight: 10 }, { arbitrary: hostileString, weight: 2 }, { arbitrary: notAString, weight: 1 });
}

/** A `completion/complete` reference: a prompt or a template of the catalogue (this school's or another's), or junk. */
function completionRef(fx: FuzzFixtures): fc.Arbitrary<unknown> {
  const templates = RESOURCES.filter((resource) => parametersOf(resource.spec.path).length > 0).map((resource) => ({ scheme: resource.scheme, path: resource.spec.path }));
  const template = templates.length > 0 ? fc.constantFrom(...templates) : fc.constant({ scheme: 'school', path: '/courses/{slug}/syllabus' });
  return fc.oneof(
    { arbitrary: promptName().map((name) => ({ type: 'ref/prompt', name })), weight: 6 },
    { arbitrary: fc.tuple(template, fc.constantFrom(fx.siteHost, fx.siteHost, fx.siteHost, fx.otherSiteHost)).map(([{ scheme, path }, host]) => ({ type: 'ref/resource', uri: `${scheme}://${host}${path}` })), weight: 5 },
    { arbitrary: resourceUri(fx).map((uri) => ({ type: 'ref/resource', uri })), weight: 1 },
    { arbitrary: fc.record({ type: fc.oneof(fc.constantFrom<unknown>('ref/tool', 'ref/prompt', 'ref/resource', 'REF/PROMPT', ''), jsonValue), name: jsonValue, uri: jsonValue }, { requiredKeys: [] }), weight: 1 },
    { arbitrary: jsonValue, weight: 1 },
  );
}

function completionParams(fx: FuzzFixtures): fc.Arbitrary<unknown> {
  const argumentNames = [...new Set([...PROMPTS.flatMap((prompt) => prompt.spec.arguments.map((argument) => argument.name)), ...RESOURCES.flatMap((resource) => parametersOf(resource.spec.path))])];
  const argumentName = fc.oneof({ arbitrary: fc.constantFrom(...(argumentNames.length > 0 ? argumentNames : ['slug'])), weight: 6 }, { arbitrary: hostileString, weight: 1 }, { arbitrary: notAString, weight: 1 });
  const prefix = fc.oneof({ arbitrary: parameterValue(fx).map((value) => value.slice(0, Math.max(0, value.length - 2))), weight: 6 }, { arbitrary: fc.constantFrom('', 'a', '%', '_', '!', "'"), weight: 2 }, { arbitrary: notAString, weight: 1 });
  const context = sometimes(fc.oneof(fc.record({ arguments: fc.dictionary(fc.constantFrom(...(argumentNames.length > 0 ? argumentNames : ['slug'])), parameterValue(fx), { maxKeys: 2 }) }), jsonValue), 25, undefined);
  // A reference and one of its own arguments, as a client asks while someone types; then anything at all.
  const targets = [
    ...PROMPTS.map((prompt) => ({ ref: { type: 'ref/prompt', name: prompt.spec.name }, names: prompt.spec.arguments.map((argument) => argument.name) })),
    ...RESOURCES.filter((resource) => parametersOf(resource.spec.path).length > 0).map((resource) => ({ ref: { type: 'ref/resource', uri: `${resource.scheme}://${fx.siteHost}${resource.spec.path}` }, names: parametersOf(resource.spec.path) })),
  ];
  const coherent =
    targets.length === 0
      ? completionRef(fx).map((ref) => ({ ref, names: ['slug'] }))
      : fc.constantFrom(...targets).map((target) => ({ ref: target.ref as unknown, names: target.names.length > 0 ? target.names : ['slug'] }));
  const own = coherent.chain(({ ref, names }) => fc.record({ ref: fc.constant(ref), argument: fc.record({ name: fc.constantFrom<unknown>(...names), value: prefix }), context }));
  const any = fc.record({ ref: completionRef(fx), argument: fc.oneof({ arbitrary: fc.record({ name: argumentName, value: prefix }), weight: 10 }, { arbitrary: jsonValue, weight: 1 }), context });
  return fc.oneof({ arbitrary: own, weight: 3 }, { arbitrary: any, weight: 2 }).map(({ ref, argument, context: given }) => ({ ref, argument, ...(given === undefined ? {} : { context: given }) }));
}

/**
 * The methods beside tools/call: discovery, lists with cursors, resource reads, prompts and completions, as either
 * era sends them (without the envelope; the 2026 generator adds it).
 */
function catalogueCall(fx: FuzzFixtures): fc.Arbitrary<Call> {
  const cursorParams = sometimes(fc.record({ cursor: listCursor }), 40, {});
  return fc.oneof(
    { arbitrary: fc.constant<Call>({ method: 'server/discover', params: {} }), weight: 2 },
    { arbitrary: cursorParams.map((params): Call => ({ method: 'resources/list', params })), weight: 3 },
    { arbitrary: cursorParams.map((params): Call => ({ method: 'resources/templates/list', params })), weight: 1 },
    { arbitrary: resourceUri(fx).map((uri): Call => ({ method: 'resources/read', params: { uri } })), weight: 6 },
    { arbitrary: cursorParams.map((params): Call => ({ method: 'prompts/list', params })), weight: 1 },
    {
      arbitrary: promptName()
        .chain((name) => fc.record({ name: fc.constant(name), arguments: sometimes(promptArguments(fx, name), 85, undefined) }))
        .map(({ name, arguments: args }): Call => ({ method: 'prompts/get', params: { name, ...(args === undefined ? {} : { arguments: args }) } })),
      weight: 5,
    },
    { arbitrary: completionParams(fx).map((params): Call => ({ method: 'completion/complete', params })), weight: 4 },
  );
}

// --- the 2025 era ----------------------------------------------------------------------------------------------

/** A method and its params: mostly tool calls and the catalogue's methods, then the handshake, other and made-up methods. */
function legacyCall(fx: FuzzFixtures): fc.Arbitrary<Call> {
  const call = toolCall(fx);
  const initialize = fc.record({
    protocolVersion: fc.oneof(fc.constantFrom<unknown>('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-01-01', '1999-01-01', MODERN), jsonValue),
    capabilities: fc.oneof(fc.constant<unknown>({}), jsonValue),
    clientInfo: fc.oneof(fc.constant<unknown>({ name: 'fuzz', version: '1' }), jsonValue),
  });
  const anyParams = fc.oneof(fc.record({ cursor: hostileString }, { requiredKeys: [] }), call, jsonValue);
  return fc.oneof(
    { arbitrary: call.map((params): Call => ({ method: 'tools/call', params })), weight: 10 },
    { arbitrary: catalogueCall(fx), weight: 10 },
    { arbitrary: sometimes(fc.record({ cursor: hostileString }), 20, {}).map((params): Call => ({ method: 'tools/list', params })), weight: 2 },
    { arbitrary: initialize.map((params): Call => ({ method: 'initialize', params })), weight: 1 },
    { arbitrary: fc.tuple(fc.constantFrom<unknown>(...METHODS), anyParams).map(([method, params]): Call => ({ method, params })), weight: 2 },
    { arbitrary: fc.tuple(fc.oneof(hostileString, jsonValue), anyParams).map(([method, params]): Call => ({ method, params })), weight: 1 },
  );
}

// --- the 2026-07-28 era ------------------------------------------------------------------------------------------

/** The `_meta` envelope gone wrong: a key missing, of the wrong type, another revision, nested deep, not an object. */
const brokenEnvelope: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY).map((key) => Object.fromEntries(Object.entries(ENVELOPE).filter(([name]) => name !== key))), weight: 2 },
  { arbitrary: fc.tuple(fc.constantFrom(PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY), jsonValue).map(([key, value]) => ({ ...ENVELOPE, [key]: value })), weight: 2 },
  { arbitrary: fc.constantFrom('2099-01-01', '2025-11-25', '2025-06-18', '2026-07-28 ', '', 'latest').map((version) => ({ ...ENVELOPE, [PROTOCOL_VERSION_KEY]: version })), weight: 2 },
  { arbitrary: fc.tuple(deepValue, fc.constantFrom('io.modelcontextprotocol/progressToken', 'deep', CLIENT_CAPABILITIES_KEY)).map(([value, key]) => ({ ...ENVELOPE, [key]: value })), weight: 1 },
  { arbitrary: fc.constant<unknown>(undefined), weight: 1 },
  { arbitrary: jsonValue, weight: 1 },
);

function modernCall(fx: FuzzFixtures): fc.Arbitrary<Call> {
  return fc.oneof(
    { arbitrary: catalogueCall(fx), weight: 12 },
    { arbitrary: toolCall(fx).map((params): Call => ({ method: 'tools/call', params })), weight: 8 },
    { arbitrary: sometimes(fc.record({ cursor: listCursor }), 20, {}).map((params): Call => ({ method: 'tools/list', params })), weight: 2 },
    { arbitrary: fc.constantFrom(...MODERN_STRANGERS).map((method): Call => ({ method, params: {} })), weight: 2 },
    { arbitrary: fc.tuple(hostileString, jsonValue).map(([method, params]): Call => ({ method, params })), weight: 1 },
  );
}

/** What Mcp-Name carries for a body (Base64 when the value cannot travel in a header as it is), or undefined. */
function mcpNameFor(method: unknown, params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const value = method === 'resources/read' ? (params as { uri?: unknown }).uri : method === 'tools/call' || method === 'prompts/get' ? (params as { name?: unknown }).name : undefined;
  if (typeof value !== 'string') return undefined;
  return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** A header value node:http sends as it is (printable, no line breaks). */
function headerSafe(value: string): string {
  return value.replace(/[^\t\u0020-\u007e]/g, '?');
}

// --- requests of both eras ---------------------------------------------------------------------------------------

const requestId = fc.oneof({ arbitrary: fc.integer({ min: 0, max: 1000 }), weight: 6 }, { arbitrary: fc.string({ maxLength: 12 }), weight: 1 });
const oddRequestId = fc.constantFrom<unknown>(null, 1.5, 2 ** 60, { a: 1 }, [1], true, 'x'.repeat(5000), -1, '');

/** A JSON-RPC request gone wrong: a member dropped or of the wrong type, an odd id, result/error added. */
function damage(message: { jsonrpc: string; id: unknown; method: unknown; params: unknown }, how: string, extra: unknown, oddId: unknown): unknown {
  const { id, method, params } = message;
  const jsonrpc = '2.0';
  switch (how) {
    case 'no-id':
      return { jsonrpc, method, params };
    case 'odd-id':
      return { jsonrpc, id: oddId, method, params };
    case 'no-jsonrpc':
      return { id, method, params };
    case 'bad-jsonrpc':
      return { jsonrpc: extra, id, method, params };
    case 'no-method':
      return { jsonrpc, id, params };
    case 'no-params':
      return { jsonrpc, id, method };
    case 'with-result':
      return { jsonrpc, id, result: extra };
    case 'with-error':
      return { jsonrpc, id, error: extra };
    default:
      return { jsonrpc, id, method, params: extra };
  }
}

/**
 * What one request gets wrong: mostly nothing (so that most requests reach the methods themselves), else exactly one
 * thing, so that every refusal is reached on its own and a failure shrinks to the one thing that matters.
 */
const LEGACY_FAULTS = ['message', 'batch', 'body', 'http-method', 'content-type', 'accept', 'origin', 'authorization', 'version-header', 'session-id', 'abuse'] as const;
const MODERN_FAULTS = [...LEGACY_FAULTS.filter((fault) => fault !== 'session-id'), 'envelope', 'method-header', 'name-header'] as const;
type Fault = (typeof MODERN_FAULTS)[number] | 'session-id' | 'none';

function faultOf(faults: readonly Fault[]): fc.Arbitrary<Fault> {
  return fc.oneof({ arbitrary: fc.constant<Fault>('none'), weight: 3 }, { arbitrary: fc.constantFrom<Fault>(...faults), weight: 2 });
}

/** Valid credentials: anonymous, member tokens (full, read only, identity only: the step-up) and an operator's. */
function goodAuthorization(fx: FuzzFixtures): fc.Arbitrary<string | null> {
  return fc.oneof(
    { arbitrary: fc.constant(null), weight: 4 },
    { arbitrary: fc.constantFrom(fx.tokens.memberFull, fx.tokens.memberRead).map((token) => `Bearer ${token}`), weight: 6 },
    { arbitrary: fc.constantFrom(fx.tokens.memberIdentity, fx.tokens.operatorFull).map((token) => `Bearer ${token}`), weight: 1 },
  );
}

function badAuthorization(fx: FuzzFixtures): fc.Arbitrary<string> {
  const tokens = [fx.tokens.memberFull, fx.tokens.memberRead, fx.tokens.operatorFull, fx.tokens.memberIdentity, fx.tokens.otherSiteMember, fx.spent.revokedAccessToken].filter((token) => token !== '');
  return authorizationValues(tokens);
}

const BAD_ACCEPT = fc.constantFrom<string | null>(null, 'application/json', 'text/event-stream', 'text/event-stream, application/json;q=0.5', 'application/json;q=0, text/event-stream', '*/*', 'text/html', 'application/json, text/event-stream;q=abc');

function badOrigin(fx: FuzzFixtures): fc.Arbitrary<string> {
  return fc.constantFrom(fx.origin, 'https://evil.example', 'null', fx.otherSite.origin, `${fx.origin}.evil.example`);
}

const BAD_HTTP_METHOD = fc.oneof({ arbitrary: fc.constantFrom('GET', 'DELETE'), weight: 1 }, { arbitrary: oddMethod, weight: 1 });

function mcpRequestsOf(fx: FuzzFixtures, era: 'legacy' | 'modern'): fc.Arbitrary<FuzzRequest> {
  const modern = era === 'modern';
  const how = fc.constantFrom('no-id', 'odd-id', 'no-jsonrpc', 'bad-jsonrpc', 'no-method', 'no-params', 'with-result', 'with-error', 'odd-params');
  const call = modern ? modernCall(fx) : legacyCall(fx);
  const messageParts = fc.record({ id: requestId, call, meta: fc.constant<unknown>(modern ? ENVELOPE : undefined), broken: brokenEnvelope });
  return fc
    .record({
      fault: faultOf(modern ? MODERN_FAULTS : LEGACY_FAULTS),
      first: messageParts,
      others: fc.array(messageParts, { minLength: 0, maxLength: 4 }),
      how,
      extra: jsonValue,
      oddId: oddRequestId,
      body: jsonBody(jsonValue),
      authorization: goodAuthorization(fx),
      badAuthorization: badAuthorization(fx),
      badAccept: BAD_ACCEPT,
      badOrigin: badOrigin(fx),
      badContentType: contentTypeFor('application/json').filter((value) => value !== 'application/json'),
      badHttpMethod: BAD_HTTP_METHOD,
      badVersion: modern
        ? fc.constantFrom<string | null>(null, '2025-11-25', '2099-01-01', '', ' 2026-07-28 ', 'x'.repeat(300))
        : fc.constantFrom<string | null>(null, '2024-01-01', '1999-01-01', MODERN, '2099-01-01', '', 'latest', 'x'.repeat(300), '2025-06-18', '2024-11-05'),
      badMethodHeader: fc.constantFrom('missing', 'other', 'upper', 'empty'),
      badNameHeader: fc.constantFrom('missing', 'other', 'broken-base64', 'base64-of-other', 'stray'),
      sessionId: hostileString.map((value) => value.replace(/[^\u0021-\u007e]/g, '')),
      abuse: abuseFor(fx).filter((value) => value !== null),
    })
    .map((drawn) => {
      const { fault } = drawn;
      const build = (part: typeof drawn.first, envelopeBroken: boolean) => {
        const { method, params } = part.call;
        const meta = envelopeBroken ? part.broken : part.meta;
        const withMeta = modern && typeof params === 'object' && params !== null && !Array.isArray(params) ? { ...(params as Record<string, unknown>), ...(meta === undefined ? {} : { _meta: meta }) } : params;
        return { jsonrpc: '2.0', id: part.id, method, params: withMeta };
      };
      const first = build(drawn.first, fault === 'envelope');
      let message: unknown = first;
      if (fault === 'message') message = damage(first, drawn.how, drawn.extra, drawn.oddId);
      if (fault === 'batch') message = [first, ...drawn.others.map((part) => build(part, false))].slice(drawn.others.length === 0 ? 1 : 0);
      const bytes = fault === 'body' ? drawn.body : Buffer.from(serialize(message));
      const rpcMethod = typeof first.method === 'string' ? first.method : '';
      const name = mcpNameFor(first.method, first.params);
      const versionHeader = fault === 'version-header' ? drawn.badVersion : modern ? MODERN : '2025-11-25';
      let methodHeader: string | null = modern ? headerSafe(rpcMethod) : null;
      if (modern && fault === 'method-header') methodHeader = { missing: null, other: rpcMethod === 'tools/list' ? 'prompts/list' : 'tools/list', upper: headerSafe(rpcMethod.toUpperCase()), empty: '' }[drawn.badMethodHeader] ?? null;
      let nameHeader: string | null = modern ? (name ?? null) : null;
      if (modern && fault === 'name-header') {
        nameHeader = { missing: null, other: 'get_school_profile', 'broken-base64': '=?base64?***?=', 'base64-of-other': `=?base64?${Buffer.from('search_courses').toString('base64')}?=`, stray: 'stray-name' }[drawn.badNameHeader] ?? null;
      }
      const auth = fault === 'authorization' ? drawn.badAuthorization : drawn.authorization;
      const verb = fault === 'http-method' ? drawn.badHttpMethod : 'POST';
      const request: FuzzRequest = {
        family: 'mcp',
        route: `POST /mcp (${modern ? '2026-07-28' : '2025 era'})`,
        label: `${verb}, ${fault === 'batch' ? 'batch' : rpcMethod || 'message'}, ${fault === 'none' ? 'well-formed' : `bad ${fault}`}, ${auth === null ? 'anonymous' : 'with Authorization'}`,
        method: verb,
        target: '/mcp',
        headers: headerList([
          ['Authorization', auth],
          ['Content-Type', fault === 'content-type' ? drawn.badContentType : 'application/json'],
          ['Accept', fault === 'accept' ? drawn.badAccept : 'application/json, text/event-stream'],
          ['MCP-Protocol-Version', versionHeader],
          ['Mcp-Method', methodHeader],
          ['Mcp-Name', nameHeader],
          ['Origin', fault === 'origin' ? drawn.badOrigin : null],
          ['Mcp-Session-Id', fault === 'session-id' ? drawn.sessionId : null],
        ]),
        body: verb === 'GET' ? undefined : bytes,
        // The tools read, or mark notifications read (an update); resources, prompts and completions read: no
        // request adds or removes rows.
        writes: 'never',
      };
      return applyAbuse(fx, request, fault === 'abuse' ? drawn.abuse : null);
    });
}

/** /mcp requests of both eras, about as many of each. */
export function mcpRequests(fx: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  return fc.oneof({ arbitrary: mcpRequestsOf(fx, 'legacy'), weight: 1 }, { arbitrary: mcpRequestsOf(fx, 'modern'), weight: 1 });
}
