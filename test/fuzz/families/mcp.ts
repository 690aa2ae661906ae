/**
 * Generators for /mcp: JSON-RPC messages with random and real methods, tool calls with arguments of the right and
 * wrong types, batches, notifications, missing and odd ids, and the transport's headers (Accept, Content-Type,
 * MCP-Protocol-Version, Origin) right and wrong.
 */
import fc from 'fast-check';
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

const METHODS = ['tools/call', 'tools/list', 'initialize', 'ping', 'notifications/initialized', 'notifications/cancelled', 'resources/list', 'resources/read', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel', 'sampling/createMessage', 'roots/list', 'tools/call ', 'TOOLS/LIST', ''];

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
  return fc.oneof({ arbitrary: plausible, weight: 10 }, { arbitrary: jsonValue, weight: 1 }, { arbitrary: fc.dictionary(hostileString.map((key) => key.slice(0, 50)), jsonValue, { maxKeys: 4 }), weight: 1 });
}

/** A method and its params: mostly tool calls, then listings, the handshake, other and made-up methods. */
function methodAndParams(fx: FuzzFixtures): fc.Arbitrary<{ method: unknown; params: unknown }> {
  const call = fc
    .record({
      name: fc.oneof({ arbitrary: fc.constantFrom<unknown>(...TOOLS), weight: 10 }, { arbitrary: hostileString, weight: 1 }, { arbitrary: jsonValue, weight: 1 }),
      arguments: sometimes(toolArguments(fx), 90, undefined),
      _meta: sometimes(fc.oneof(fc.constant<unknown>({ progressToken: 1 }), jsonValue), 5, undefined),
    })
    .map(({ name, arguments: args, _meta }) => ({ name, ...(args === undefined ? {} : { arguments: args }), ...(_meta === undefined ? {} : { _meta }) }));
  const initialize = fc.record({
    protocolVersion: fc.oneof(fc.constantFrom<unknown>('2025-06-18', '2025-03-26', '2024-11-05', '1999-01-01'), jsonValue),
    capabilities: fc.oneof(fc.constant<unknown>({}), jsonValue),
    clientInfo: fc.oneof(fc.constant<unknown>({ name: 'fuzz', version: '1' }), jsonValue),
  });
  const anyParams = fc.oneof(fc.record({ cursor: hostileString }, { requiredKeys: [] }), call, jsonValue);
  return fc.oneof(
    { arbitrary: call.map((params) => ({ method: 'tools/call' as unknown, params: params as unknown })), weight: 12 },
    { arbitrary: sometimes(fc.record({ cursor: hostileString }), 20, {}).map((params) => ({ method: 'tools/list' as unknown, params: params as unknown })), weight: 2 },
    { arbitrary: initialize.map((params) => ({ method: 'initialize' as unknown, params: params as unknown })), weight: 1 },
    { arbitrary: fc.tuple(fc.constantFrom<unknown>(...METHODS), anyParams).map(([method, params]) => ({ method, params })), weight: 2 },
    { arbitrary: fc.tuple(fc.oneof(hostileString, jsonValue), anyParams).map(([method, params]) => ({ method: method as unknown, params })), weight: 1 },
  );
}

/** A JSON-RPC request as a client sends it, then (sometimes) broken: a member dropped or of the wrong type, result/error added. */
function message(fx: FuzzFixtures): fc.Arbitrary<unknown> {
  const request = fc.record({
    jsonrpc: fc.constant<unknown>('2.0'),
    id: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 1000 }), weight: 14 }, { arbitrary: fc.constantFrom<unknown>('a', '', null, -1, 1.5, 2 ** 60, { a: 1 }, [1], true, 'x'.repeat(5000)), weight: 2 }),
    call: methodAndParams(fx),
  });
  const damage = fc.oneof({ arbitrary: fc.constant('none'), weight: 20 }, { arbitrary: fc.constantFrom('no-id', 'no-jsonrpc', 'bad-jsonrpc', 'no-method', 'no-params', 'with-result', 'with-error'), weight: 6 });
  return fc.tuple(request, damage, jsonValue).map(([{ jsonrpc, id, call }, how, extra]) => {
    const { method, params: parameters } = call;
    switch (how) {
      case 'no-id':
        return { jsonrpc, method, params: parameters };
      case 'no-jsonrpc':
        return { id, method, params: parameters };
      case 'bad-jsonrpc':
        return { jsonrpc: extra, id, method, params: parameters };
      case 'no-method':
        return { jsonrpc, id, params: parameters };
      case 'no-params':
        return { jsonrpc, id, method };
      case 'with-result':
        return { jsonrpc, id, result: extra };
      case 'with-error':
        return { jsonrpc, id, error: extra };
      default:
        return { jsonrpc, id, method, params: parameters };
    }
  });
}

export function mcpRequests(fx: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const tokens = [fx.tokens.memberFull, fx.tokens.memberRead, fx.tokens.operatorFull, fx.tokens.memberIdentity, fx.tokens.otherSiteMember, fx.spent.revokedAccessToken].filter((token) => token !== '');
  const authorization = fc.oneof({ arbitrary: fc.constant(null), weight: 5 }, { arbitrary: fc.constantFrom(fx.tokens.memberFull, fx.tokens.memberRead, fx.tokens.operatorFull).map((token) => `Bearer ${token}`), weight: 6 }, { arbitrary: authorizationValues(tokens), weight: 1 });
  const payload = fc.oneof({ arbitrary: message(fx), weight: 10 }, { arbitrary: fc.array(message(fx), { minLength: 0, maxLength: 5 }), weight: 2 }, { arbitrary: jsonValue, weight: 1 });
  const accept = fc.oneof(
    { arbitrary: fc.constant<string | null>('application/json, text/event-stream'), weight: 16 },
    { arbitrary: fc.constantFrom<string | null>(null, 'application/json', 'text/event-stream', 'text/event-stream, application/json;q=0.5', 'application/json;q=0, text/event-stream', '*/*', 'text/html', 'application/json, text/event-stream;q=abc'), weight: 3 },
  );
  const protocolVersion = sometimes(fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05', '1999-01-01', '', 'latest', 'x'.repeat(300)), 15, null);
  const origin = sometimes(fc.constantFrom(fx.origin, 'https://evil.example', 'null', fx.otherSite.origin, `${fx.origin}.evil.example`), 12, null);
  const method = fc.oneof({ arbitrary: fc.constant('POST'), weight: 28 }, { arbitrary: fc.constantFrom('GET', 'DELETE'), weight: 1 }, { arbitrary: oddMethod, weight: 1 });
  return fc
    .record({ payload, body: fc.nat({ max: 19 }), broken: jsonBody(jsonValue), authorization, accept, protocolVersion, origin, contentType: contentTypeFor('application/json'), method, sessionId: sometimes(hostileString.map((value) => value.replace(/[^\u0021-\u007e]/g, '')), 8, null), abuse: abuseFor(fx) })
    .map(({ payload: value, body: roll, broken, authorization: auth, accept: acceptValue, protocolVersion: version, origin: originValue, contentType, method: verb, sessionId, abuse }) => {
      const bytes = roll < 17 ? Buffer.from(JSON.stringify(value) ?? 'null') : broken;
      const callsTool = typeof value === 'object' && value !== null && !Array.isArray(value) && (value as Record<string, unknown>).method === 'tools/call';
      return applyAbuse(
        fx,
        {
          family: 'mcp',
          route: 'POST /mcp',
          label: `${verb}, ${Array.isArray(value) ? 'batch' : callsTool ? 'tools/call' : 'message'}${roll >= 17 ? ' (broken JSON)' : ''}, ${auth === null ? 'anonymous' : 'with Authorization'}`,
          method: verb,
          target: '/mcp',
          headers: headerList([
            ['Authorization', auth],
            ['Content-Type', contentType],
            ['Accept', acceptValue],
            ['MCP-Protocol-Version', version],
            ['Origin', originValue],
            ['Mcp-Session-Id', sessionId],
          ]),
          body: verb === 'GET' ? undefined : bytes,
          // The tools read, or mark notifications read (an update): no tool adds or removes rows.
          writes: 'never',
        },
        abuse,
      );
    });
}
