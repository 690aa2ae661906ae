/**
 * Hostile building blocks shared by every family's generator: strings, JSON values and texts, form and query
 * encodings, content types and header abuse. Each is an arbitrary, so fast-check can shrink a failing request to the
 * part that matters.
 */
import fc from 'fast-check';
import type { FuzzRequest } from './http-client.js';

export const ONE_MEBIBYTE = 1024 * 1024;
/** Past the 64 KiB body limits of the JSON and form parsers, GraphQL and /mcp. */
export const PAST_BODY_LIMIT = 64 * 1024 + 1;

/** `value` in about `percent` % of the draws, else `nil` (which shrinking goes to first). */
export function sometimes<T, N>(value: fc.Arbitrary<T>, percent: number, nil: N): fc.Arbitrary<T | N> {
  return fc.oneof({ arbitrary: fc.constant(nil), weight: 100 - percent }, { arbitrary: value, weight: percent });
}

/** Strings a careless server trips over: injection payloads, encodings, numbers in disguise, prototype keys. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\t\n\r',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  '1e309',
  'NaN',
  '9'.repeat(40),
  '%',
  '%00',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '\u0000',
  'a\u0000b',
  '\r\nX-Injected: 1',
  "' OR 1=1 --",
  "1; DROP TABLE users; --",
  '" UNION SELECT password FROM users --',
  "'); DELETE FROM token_pairs; --",
  '${jndi:ldap://127.0.0.1/x}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'https://evil.example/callback',
  'javascript:alert(1)',
  'data:text/html,<b>x</b>',
  'http://127.0.0.1:8765/callback',
  'http://127.0.0.1:8765/callback/',
  'HTTP://127.0.0.1:8765/callback',
  'sga_' + 'A'.repeat(43),
  'sgr_' + 'A'.repeat(43),
  'sgc_' + 'A'.repeat(43),
  'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.',
  '\uFEFFbom',
  '\u202Eevil',
  '\uD800',
  '\uDFFF\uD800',
  '😀👨‍👩‍👧‍👦',
  'Ā'.repeat(300),
  'İstanbul',
  'ǅ',
  'Claude',
  'claude',
  ' ChatGPT ',
  'ＣＬＡＵＤＥ',
];

/** Sizes that sit on and past the limits: 64 KiB is every body parser's limit; 1 MiB is far beyond it. */
export const hugeLength = fc.constantFrom(256, 4096, 64 * 1024 - 64, PAST_BODY_LIMIT, ONE_MEBIBYTE);

export const hugeString = fc.tuple(hugeLength, fc.constantFrom('A', 'é', '%', '\u0000', '😀', '<', 'a b')).map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));

/** Any string, from plain ASCII to lone surrogates, the nasty ones, and now and then a huge one. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40 }), weight: 5 },
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 5 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 1 },
  { arbitrary: hugeString, weight: 1 },
);

/** JSON values of every type, nested a little. */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 4 },
  { arbitrary: hostileString, weight: 3 },
  { arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e300, [], {}, [[]], { '': '' }), weight: 2 },
  { arbitrary: fc.array(hostileString, { maxLength: 4 }), weight: 1 },
);

/** Nesting far past any sane document, as JSON text: arrays, objects, or both; within the 64 KiB limits and past them. */
export const deepJsonText = fc.tuple(fc.constantFrom(64, 1000, 5000, 10_000, 30_000, 100_000), fc.constantFrom('array', 'object', 'mixed')).map(([depth, shape]) => {
  if (shape === 'array') return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  if (shape === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
});

/** JSON texts that are not quite JSON, or JSON of the wrong shape. */
export const brokenJsonText = fc.constantFrom(
  '',
  '{',
  '}',
  '{"a":}',
  "{'a':1}",
  '{"a":1,}',
  '[1,2',
  'nul',
  'NaN',
  '1e999999',
  '"\\ud800"',
  '"\\u00"',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"a":1,"a":2}',
  '\uFEFF{}',
  '{"a":"\u0000"}',
  '[]',
  '[{}]',
  '0',
  'true',
  '"string"',
);

/** Bytes that are not UTF-8 (overlong forms, lone continuation bytes, surrogate code points), with NULs. */
export const invalidUtf8 = fc.oneof(
  fc.constantFrom(Buffer.from([0xc0, 0xaf]), Buffer.from([0xff, 0xfe, 0xfd]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0x80, 0x80]), Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]), Buffer.from([0x00, 0x00, 0x00])),
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
);

/** Percent-encodes like a form would, or breaks it: raw bytes, lone %, double encoding. */
export const encodingStyle = fc.constantFrom('standard', 'standard', 'standard', 'raw', 'broken-percent', 'double', 'plus-spaces', 'latin1');
export type EncodingStyle = 'standard' | 'raw' | 'broken-percent' | 'double' | 'plus-spaces' | 'latin1';

/** Encodes one form/query component in a style; the result is always printable ASCII, safe in a request target. */
export function encodeComponent(value: string, style: string): string {
  switch (style) {
    case 'raw':
      // Only what would break the request line or the pair itself is escaped: a literal "%zz" stays as it is.
      return [...value].map((char) => (/^[\u0021-\u007e]$/.test(char) && !'#&=+'.includes(char) ? char : safeEncode(char))).join('');
    case 'broken-percent':
      return `${safeEncode(value)}%${value.length % 2 === 0 ? 'G' : ''}`;
    case 'double':
      return safeEncode(safeEncode(value));
    case 'plus-spaces':
      return safeEncode(value).replace(/%20/g, '+');
    case 'latin1':
      return [...value].map((char) => (char.charCodeAt(0) < 0x100 && char.charCodeAt(0) > 0x7f ? `%${char.charCodeAt(0).toString(16).toUpperCase()}` : safeEncode(char))).join('');
    default:
      return safeEncode(value);
  }
}

/** encodeURIComponent, except that a lone surrogate becomes a broken escape of its code unit instead of throwing. */
export function safeEncode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...value].map((char) => (/[\uD800-\uDFFF]/.test(char) ? `%${char.charCodeAt(0).toString(16)}` : encodeURIComponent(char))).join('');
  }
}

export type Pair = [string, string];

/** name=value pairs, joined with & (possibly with empty pieces and stray separators). */
export function encodePairs(pairs: readonly Pair[], style: string, separator = '&'): string {
  return pairs.map(([name, value]) => `${encodeComponent(name, style === 'double' ? 'standard' : style)}=${encodeComponent(value, style)}`).join(separator);
}

/** Parameter lists built from named generators, with optional duplicates of any of them (`a=1&a=2`) and junk parameters. */
export function parameterList(fields: Record<string, fc.Arbitrary<string>>, options: { duplicateRate?: number } = {}): fc.Arbitrary<Pair[]> {
  const names = Object.keys(fields);
  const one = fc.record(Object.fromEntries(names.map((name) => [name, sometimes(fields[name] as fc.Arbitrary<string>, 80, undefined)])) as Record<string, fc.Arbitrary<string | undefined>>);
  const junk = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...names), hostileString.map((value) => value.slice(0, 64))), hostileString), { maxLength: 3 });
  return fc.tuple(one, junk, fc.integer({ min: 0, max: 99 })).map(([given, extra, roll]) => {
    const pairs: Pair[] = [];
    for (const name of names) {
      const value = given[name];
      if (value !== undefined) pairs.push([name, value]);
    }
    // Duplicates of real parameters come from the junk list; keep them rarer than clean requests.
    const duplicates = roll < (options.duplicateRate ?? 25) ? extra : extra.filter(([name]) => !names.includes(name));
    return [...pairs, ...duplicates];
  });
}

/** Content-Type values from right to absurd. */
export function contentTypeFor(right: string): fc.Arbitrary<string | null> {
  return fc.oneof(
    { arbitrary: fc.constant(right), weight: 14 },
    {
      arbitrary: fc.constantFrom<string | null>(
        null,
        '',
        'application/json',
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=ISO-8859-1',
        'application/x-www-form-urlencoded; charset=utf-16',
        'application/json; charset=utf-32',
        'application/merge-patch+json',
        'application/problem+json',
        'application/graphql',
        'text/plain',
        'text/html',
        'multipart/form-data; boundary=----x',
        'multipart/form-data',
        'application/octet-stream',
        'image/png',
        '*/*',
        'application/',
        '/json',
        ';;;',
        'application/json; boundary="',
        `application/json; ${'x=y; '.repeat(400)}`,
        'APPLICATION/JSON',
        'application/json, application/json',
      ),
      weight: 2,
    },
  );
}

/** Authorization header values: no token, malformed schemes, truncated and padded tokens, a real token mangled. */
export function authorizationValues(realTokens: readonly string[]): fc.Arbitrary<string> {
  const real = realTokens.length > 0 ? fc.constantFrom(...realTokens) : fc.constant('sga_none');
  return fc.oneof(
    fc.constantFrom('Bearer', 'Bearer ', 'Bearer  ', 'bearer', 'Basic', 'Basic ', 'Basic !!!', `Basic ${Buffer.from('a:b').toString('base64')}`, `Basic ${Buffer.from(':').toString('base64')}`, 'Negotiate YII=', 'Digest username="a"', 'Bearer a b', 'Bearer ====', 'Bearer =abc', 'Bearer null', 'Token abc', 'Bearer\ttab', 'Bearer sga_', `Bearer ${'A'.repeat(8000)}`, `Bearer ${'sga_'.repeat(1000)}`),
    real.map((token) => `Bearer ${token}`),
    real.map((token) => `bearer ${token}`),
    real.map((token) => `BEARER   ${token}`),
    real.map((token) => `Bearer ${token}x`),
    real.map((token) => `Bearer ${token.slice(0, -1)}`),
    real.map((token) => `Bearer ${token.toUpperCase()}`),
    real.map((token) => `Bearer ${token}, Bearer ${token}`),
    real.map((token) => `Basic ${Buffer.from(`${token}:${token}`).toString('base64')}`),
    hostileString.filter((value) => /^[\t\u0020-\u007e\u0080-\u00ff]*$/.test(value)).map((value) => `Bearer ${value}`),
  );
}

/** Header abuse applied on top of any request: extra, repeated, overlong and lying headers. */
export interface HeaderAbuse {
  headers: Array<[string, string]>;
  hostOverride: string | null;
  /** A header block past Node's 16 KiB limit: Node answers 431 itself. */
  overlong: boolean;
}

export function headerAbuse(siteHost: string, otherSiteHost: string, realTokens: readonly string[]): fc.Arbitrary<HeaderAbuse> {
  const latin1 = (value: string) => value.replace(/[^\t\u0020-\u007e\u0080-\u00ff]/g, '?');
  const extra = fc.oneof(
    authorizationValues(realTokens).map((value): [string, string] => ['Authorization', value]),
    fc.constantFrom<[string, string]>(
      ['Origin', 'null'],
      ['Origin', 'https://evil.example'],
      ['Origin', `http://${siteHost}`],
      ['Origin', `http://${otherSiteHost}`],
      ['Origin', `http://${'o'.repeat(8000)}.example`],
      ['X-Forwarded-For', '127.0.0.1, 10.0.0.1, ::1'],
      ['X-Forwarded-For', 'not-an-address'],
      ['X-Forwarded-Host', 'evil.example'],
      ['X-Forwarded-Proto', 'gopher'],
      ['X-Request-Id', '../../etc/passwd'],
      ['X-Request-Id', 'x'.repeat(200)],
      ['Accept', 'text/event-stream'],
      ['Accept', 'application/json;q=0'],
      ['Accept', '*/*;q=abc'],
      ['Accept', `${'application/json, '.repeat(300)}`],
      ['Accept-Encoding', 'gzip, br, zstd, identity;q=0'],
      ['Accept-Charset', 'utf-32'],
      ['Cookie', 'sg_session=abc; sg_session=def'],
      ['Cookie', `${'a=b; '.repeat(500)}`],
      ['If-Match', '*'],
      ['If-None-Match', '*'],
      ['Expect', '100-continue'],
      ['Range', 'bytes=0-0,-1'],
      ['Content-Encoding', 'gzip'],
      ['Content-Encoding', 'deflate, br'],
      ['MCP-Protocol-Version', '1999-01-01'],
      ['Mcp-Session-Id', 'x'.repeat(300)],
      ['X-HTTP-Method-Override', 'DELETE'],
      ['Connection', 'keep-alive, Upgrade'],
      ['Upgrade', 'websocket'],
      ['Referer', `http://${siteHost}/${'r'.repeat(4000)}`],
      ['User-Agent', ''],
    ),
    fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,30}$/), hostileString.map(latin1).map((value) => value.slice(0, 2000))),
  );
  const host = fc.constantFrom(
    `${'h'.repeat(10_000)}.example`,
    `${siteHost}@evil.example`,
    'localhost:99999',
    'localhost:-1',
    `[::1]:${siteHost.split(':')[1] ?? ''}`,
    siteHost.toUpperCase(),
    `${siteHost}.`,
    '',
    ' ',
    'evil.example',
    otherSiteHost,
    `${siteHost}, evil.example`,
  );
  return fc.record({
    extra: fc.array(extra, { maxLength: 3 }),
    host: sometimes(host, 15, null),
    overlong: fc.oneof({ arbitrary: fc.constant(false), weight: 30 }, { arbitrary: fc.constant(true), weight: 1 }),
  }).map(({ extra: headers, host: hostOverride, overlong }) => ({
    headers: overlong ? [...headers, ['X-Overlong', 'x'.repeat(20_000)]] : headers,
    hostOverride,
    overlong,
  }));
}

/** Mostly no abuse, sometimes some: most requests should reach the endpoint's own checks. */
export function maybeAbuse(siteHost: string, otherSiteHost: string, realTokens: readonly string[]): fc.Arbitrary<HeaderAbuse | null> {
  return sometimes(headerAbuse(siteHost, otherSiteHost, realTokens), 20, null);
}

/** Applies header abuse to a request (an overriding Host marks it as aimed at another origin). */
export function withAbuse(request: FuzzRequest, abuse: HeaderAbuse | null, siteHost: string): FuzzRequest {
  if (abuse === null) return request;
  const headers: Array<[string, string]> = [...request.headers, ...abuse.headers];
  let foreignHost = request.foreignHost ?? false;
  if (abuse.hostOverride !== null) {
    headers.unshift(['Host', abuse.hostOverride]);
    foreignHost = abuse.hostOverride !== siteHost;
  }
  return { ...request, headers, foreignHost, breaksFraming: (request.breaksFraming ?? false) || abuse.overlong };
}

/** A weird method now and then; node:http sends any token. */
export const oddMethod = fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'PURGE', 'SEARCH', 'REPORT', 'QUERY');

/** A JSON text for a value, sometimes with the value replaced by deep nesting or broken JSON. */
export function jsonBody(value: fc.Arbitrary<unknown>): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { arbitrary: value.map((item) => Buffer.from(JSON.stringify(item) ?? 'null')), weight: 12 },
    { arbitrary: deepJsonText.map((text) => Buffer.from(text)), weight: 1 },
    { arbitrary: brokenJsonText.map((text) => Buffer.from(text)), weight: 2 },
    { arbitrary: invalidUtf8, weight: 1 },
    { arbitrary: hugeLength.map((length) => Buffer.from(`{"a":"${'x'.repeat(length)}"}`)), weight: 1 },
  );
}

/** A form body for pairs, sometimes broken at the byte level. */
export function formBody(pairs: fc.Arbitrary<Pair[]>): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { arbitrary: fc.tuple(pairs, encodingStyle).map(([list, style]) => Buffer.from(encodePairs(list, style), 'latin1')), weight: 12 },
    { arbitrary: fc.tuple(pairs, invalidUtf8).map(([list, bytes]) => Buffer.concat([Buffer.from(encodePairs(list, 'standard')), Buffer.from('&x='), bytes])), weight: 1 },
    { arbitrary: fc.tuple(pairs, hugeLength).map(([list, length]) => Buffer.from(`${encodePairs(list, 'standard')}&pad=${'p'.repeat(length)}`)), weight: 1 },
    { arbitrary: fc.constantFrom('', '&&&', '=', '==&=', 'a', '%', 'a=%', 'a=%2', '%zz=1', 'grant_type', `${'a=1&'.repeat(5000)}`).map((text) => Buffer.from(text)), weight: 1 },
  );
}

/** Visible excerpt of a long string for reports. */
export function excerpt(text: string, length = 160): string {
  const shown = text.length > length * 2 ? text.slice(0, length * 2) : text;
  // Control characters (but tab and newlines) as \xNN, so a report stays one readable line.
  const clean = [...shown].map((char) => (char.charCodeAt(0) < 0x20 && !'\t\n\r'.includes(char) ? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}` : char)).join('');
  return clean.length > length ? `${clean.slice(0, length)}… (${text.length} chars)` : clean;
}
