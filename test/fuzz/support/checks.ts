/**
 * The properties every answer must have: no 5xx, no stack trace, no SQL or driver text, the error format of its
 * interface. (Latency and row counts are checked by the runner, which can re-send and snapshot.)
 *
 * Answers echo what the client sent ("client_name \"' OR 1=1 --\" is not a known vendor platform"), so before the
 * leak patterns run, every string the request carried is blanked out of the answer: only text the server made up
 * itself can count as a leak.
 */
import type { Family, FuzzRequest, FuzzResponse } from './http-client.js';
import { decodeEntities } from '../../support/authorize-flow.js';

export type CheckName = 'no-answer' | 'server-error' | 'slow' | 'stack-trace' | 'sql' | 'format' | 'row-counts';

export interface Violation {
  check: CheckName;
  message: string;
}

/** Stack frames as V8 prints them, and the paths they name. */
const STACK_PATTERNS: ReadonlyArray<[string, RegExp]> = [
  ['a V8 stack frame', /\n\s+at .+\(.+:\d+:\d+\)/],
  ['an "at async" frame', /\bat async\b/],
  ['a bare stack frame', /(^|\n)\s*at (?:new )?[\w$.<>]+ \(?(?:file:|node:|\/)[^)\n]*:\d+:\d+\)?/],
  ['a source path', /(?:\/[\w.-]+)+\.(?:ts|js|mjs|cjs):\d+|\/src\/[\w/.-]+\.[jt]s\b|node_modules\/|node:internal/],
  ['an error class with its message and a frame', /\b(?:Type|Reference|Range|Syntax)Error: [^\n]*\n\s+at /],
];

/** SQL statements and the database drivers' error vocabulary. */
const SQL_PATTERNS: ReadonlyArray<[string, RegExp]> = [
  ['an SQL statement', /\b(select|insert|update|delete)\b.+\b(from|into|set)\b/i],
  ['a MySQL error code', /\bER_[A-Z_]{3,}\b/],
  ['a SQLite error code', /\bSQLITE_[A-Z_]+\b/],
  ['the sqlite3 driver', /\bsqlite3\b/i],
  ['knex', /\bknex\b/i],
  ['an SQL syntax error', /SQL syntax|syntax error (?:at or )?near|no such (?:table|column)|Unknown column|Duplicate entry|foreign key constraint|UNIQUE constraint failed|NOT NULL constraint/i],
  ['a database address', /\b(?:127\.0\.0\.1|localhost):3306\b|ECONNREFUSED/],
];

/** Everything the request carried that an answer may legitimately echo, longest first. */
export function requestFragments(request: FuzzRequest): string[] {
  const fragments = new Set<string>();
  const add = (value: string) => {
    if (value.length < 3) return;
    fragments.add(value);
    // Servers clip what they echo (first 32/64/200 characters and an ellipsis): blank the clipped forms too.
    for (const length of [16, 32, 64, 100, 128, 200]) if (value.length > length) fragments.add(value.slice(0, length));
  };
  const addDecoded = (text: string) => {
    add(text);
    for (const [name, value] of new URLSearchParams(text)) {
      add(name);
      add(value);
    }
    try {
      add(decodeURIComponent(text));
    } catch {
      // Broken percent-encoding: the raw text was added already.
    }
  };
  const addJson = (value: unknown, depth = 0) => {
    if (depth > 50) return;
    if (typeof value === 'string') add(value);
    else if (Array.isArray(value)) value.forEach((item) => addJson(item, depth + 1));
    else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        add(key);
        addJson(item, depth + 1);
      }
    }
  };
  const [path = '', query = ''] = request.target.split('?', 2);
  addDecoded(path);
  for (const segment of path.split('/')) addDecoded(segment);
  addDecoded(query);
  for (const [name, value] of request.headers) {
    add(name);
    add(value);
  }
  const bodyBytes = request.raw ?? request.body;
  if (bodyBytes !== undefined && bodyBytes.length <= 2 * 1024 * 1024) {
    const text = bodyBytes.toString('utf8');
    addDecoded(text);
    addDecoded(bodyBytes.toString('latin1'));
    try {
      addJson(JSON.parse(text));
    } catch {
      // Not JSON.
    }
    // A GraphQL document echoes its own tokens in messages ("Cannot query field \"select\" on type ...").
    for (const word of text.split(/[^\w$@:-]+/)) add(word);
  }
  return [...fragments].sort((a, b) => b.length - a.length);
}

/** The texts of an answer the patterns look at: header values, and the body's strings (JSON decoded, HTML unescaped). */
function answerTexts(response: FuzzResponse): string[] {
  const texts: string[] = [];
  for (const [name, value] of Object.entries(response.headers)) {
    if (name === 'content-security-policy') continue;
    if (name === 'location' && typeof value === 'string') {
      // A redirect carries the request's own values (state, error_description), form-encoded: read them decoded.
      try {
        const url = new URL(value, 'http://redirect.invalid');
        texts.push(`${url.origin}${url.pathname}`);
        for (const [key, item] of url.searchParams) texts.push(key, item);
      } catch {
        texts.push(value);
      }
      continue;
    }
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) texts.push(...value);
  }
  const collect = (value: unknown, depth = 0) => {
    if (depth > 100) return;
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) value.forEach((item) => collect(item, depth + 1));
    else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        texts.push(key);
        collect(item, depth + 1);
      }
    }
  };
  const parsed = parseJson(response.text);
  if (parsed.ok) collect(parsed.value);
  else if (/^\s*(event|data|id):/m.test(response.text)) {
    for (const line of response.text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const data = parseJson(line.slice(5));
      if (data.ok) collect(data.value);
      else texts.push(line);
    }
  } else texts.push(decodeEntities(response.text));
  return texts;
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function blankOut(text: string, fragments: readonly string[]): string {
  let result = text;
  for (const fragment of fragments) if (result.includes(fragment)) result = result.split(fragment).join('\u25a1');
  return result;
}

/** No stack trace and no SQL in anything the server wrote itself. */
export function leakViolations(request: FuzzRequest, response: FuzzResponse): Violation[] {
  const violations: Violation[] = [];
  const suspicious = answerTexts(response).filter((text) => [...STACK_PATTERNS, ...SQL_PATTERNS].some(([, pattern]) => pattern.test(text)));
  if (suspicious.length === 0) return violations;
  // Only now (rarely) is it worth collecting and blanking out what the request carried.
  const fragments = requestFragments(request);
  for (const raw of suspicious) {
    const text = blankOut(raw, fragments);
    for (const [what, pattern] of STACK_PATTERNS) {
      const match = pattern.exec(text);
      if (match) violations.push({ check: 'stack-trace', message: `${what}: "${around(text, match.index, match[0].length)}"` });
    }
    for (const [what, pattern] of SQL_PATTERNS) {
      const match = pattern.exec(text);
      if (match) violations.push({ check: 'sql', message: `${what}: "${around(text, match.index, match[0].length)}"` });
    }
  }
  return violations;
}

function around(text: string, index: number, length: number): string {
  const start = Math.max(0, index - 40);
  return `${start > 0 ? '…' : ''}${text.slice(start, index + length + 40).replace(/\s+/g, ' ')}${index + length + 40 < text.length ? '…' : ''}`;
}

// --- error formats -------------------------------------------------------------------------------------------------

function header(response: FuzzResponse, name: string): string {
  const value = response.headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** RFC 6749 5.2: a JSON object with a string `error` (and, when given, a string `error_description`). */
function oauthErrorProblem(response: FuzzResponse): string | null {
  if (!/^application\/json\b/i.test(header(response, 'content-type'))) return `Content-Type "${header(response, 'content-type')}" is not application/json`;
  const parsed = parseJson(response.text);
  if (!parsed.ok || !isObject(parsed.value)) return 'the body is not a JSON object';
  if (typeof parsed.value.error !== 'string' || parsed.value.error === '') return 'the JSON body has no string "error"';
  if ('error_description' in parsed.value && typeof parsed.value.error_description !== 'string') return '"error_description" is not a string';
  return null;
}

/** RFC 9457 problem details as the admin contract's Problem declares them. */
function problemDetailsProblem(response: FuzzResponse): string | null {
  if (!/^application\/problem\+json\b/i.test(header(response, 'content-type'))) return `Content-Type "${header(response, 'content-type')}" is not application/problem+json`;
  const parsed = parseJson(response.text);
  if (!parsed.ok || !isObject(parsed.value)) return 'the body is not a JSON object';
  const { type, title, status, code } = parsed.value;
  if (typeof type !== 'string' || typeof title !== 'string' || typeof code !== 'string') return 'the problem lacks a string type, title or code';
  if (status !== response.status) return `the problem's status ${String(status)} is not the HTTP status ${response.status}`;
  return null;
}

/** GraphQL over HTTP: a JSON object with `data` or an `errors` list of objects with a string message. */
function graphqlProblem(response: FuzzResponse): string | null {
  const type = header(response, 'content-type');
  if (!/^application\/(graphql-response\+)?json\b/i.test(type)) return `Content-Type "${type}" is not application/json or application/graphql-response+json`;
  const parsed = parseJson(response.text);
  if (!parsed.ok || !isObject(parsed.value)) return 'the body is not a JSON object';
  const { errors } = parsed.value;
  if (response.status >= 400 && typeof parsed.value.error === 'string') return null;
  if (errors !== undefined) {
    if (!Array.isArray(errors) || errors.length === 0 || !errors.every((error) => isObject(error) && typeof error.message === 'string')) return '"errors" is not a list of objects with a message';
    return null;
  }
  if (!('data' in parsed.value)) return 'the body has neither "data" nor "errors"';
  if (response.status >= 400) return `a ${response.status} answer without "errors"`;
  return null;
}

function isJsonRpcMessage(value: unknown): boolean {
  if (!isObject(value) || value.jsonrpc !== '2.0') return false;
  if ('error' in value) return isObject(value.error) && typeof value.error.code === 'number' && typeof value.error.message === 'string';
  return 'result' in value;
}

/** /mcp: JSON-RPC answers (one, a batch, or SSE events carrying them), 202 for notifications, OAuth errors before the transport. */
function mcpProblem(request: FuzzRequest, response: FuzzResponse): string | null {
  if (response.status === 202) return response.text === '' ? null : 'a 202 with a body';
  const type = header(response, 'content-type');
  if (/^text\/event-stream\b/i.test(type)) {
    const data = response.text.split('\n').filter((line) => line.startsWith('data:'));
    if (data.length === 0) return 'an event stream without data';
    for (const line of data) {
      const parsed = parseJson(line.slice(5));
      if (!parsed.ok || !(isJsonRpcMessage(parsed.value) || (Array.isArray(parsed.value) && parsed.value.every(isJsonRpcMessage)))) return `an event that is not a JSON-RPC message: ${line.slice(0, 120)}`;
    }
    return null;
  }
  if (!/^application\/json\b/i.test(type)) return `Content-Type "${type}" is neither application/json nor text/event-stream`;
  const parsed = parseJson(response.text);
  if (!parsed.ok) return 'the body is not JSON';
  if (isJsonRpcMessage(parsed.value) || (Array.isArray(parsed.value) && parsed.value.length > 0 && parsed.value.every(isJsonRpcMessage))) return null;
  if (response.status >= 400 && oauthErrorProblem(response) === null) return null;
  return request.method === 'POST' ? 'neither a JSON-RPC message nor an OAuth error' : 'neither a JSON-RPC error nor an OAuth error';
}

/** The authorization endpoint: a redirect with a Location, an HTML page, or an OAuth JSON error from the app itself. */
function authorizeProblem(response: FuzzResponse): string | null {
  if (response.status >= 300 && response.status < 400) return header(response, 'location') === '' ? `a ${response.status} without Location` : null;
  if (/^text\/html\b/i.test(header(response, 'content-type'))) return /<html|<!doctype html/i.test(response.text) ? null : 'text/html that is not a page';
  // Methods the route does not have, bodies past the limits: the app-wide JSON error.
  return oauthErrorProblem(response) === null ? null : `neither a redirect, an HTML page nor an OAuth JSON error (Content-Type "${header(response, 'content-type')}")`;
}

/**
 * The end_session endpoint: no fuzz client registered a post-logout address, so the only redirect allowed is a
 * cookieless POST sent back to the endpoint as a GET; otherwise an HTML page or an OAuth JSON error.
 */
function logoutProblem(response: FuzzResponse): string | null {
  if (response.status >= 300 && response.status < 400) {
    const location = header(response, 'location');
    return location.startsWith('/oauth/logout?') ? null : `a ${response.status} redirect to ${location || '(no Location)'}: an open redirect`;
  }
  return authorizeProblem(response);
}

/** Whether the answer is Node's own refusal of a request it could not parse (no body, no app headers). */
function isBareNodeRefusal(response: FuzzResponse): boolean {
  return [400, 413, 414, 431, 505].includes(response.status) && response.text === '' && response.requestId === null;
}

/** The error format of the endpoint's interface (and JSON for its successes), or null. */
export function formatViolation(family: Family, request: FuzzRequest, response: FuzzResponse): Violation | null {
  if (request.method === 'HEAD' || response.status === 204 || response.status === 304) return null;
  // OPTIONS answered with the Allow header and no body (RFC 9110 9.3.7) is not an error.
  if (request.method === 'OPTIONS' && response.status === 200 && response.text === '') return null;
  if (request.breaksFraming && isBareNodeRefusal(response)) return null;
  // A Host naming no site: the app answers before any interface, in its own JSON error (404 site_not_found, or 400
  // for a Host it cannot read). A Host naming a site after all (another site, other case) gets the interface's format.
  if (request.foreignHost && (response.status === 404 || response.status === 400) && oauthErrorProblem(response) === null) return null;
  let problem: string | null = null;
  switch (request.interface ?? family) {
    case 'token':
    case 'revocation':
    case 'registration':
    case 'userinfo':
      if (response.status >= 400) problem = oauthErrorProblem(response);
      else if (response.status === 200 || response.status === 201) {
        const parsed = parseJson(response.text);
        if (!/^application\/json\b/i.test(header(response, 'content-type')) || !parsed.ok || !isObject(parsed.value)) problem = 'a success that is not a JSON object';
      }
      break;
    case 'authorize':
      problem = authorizeProblem(response);
      break;
    case 'logout':
      problem = logoutProblem(response);
      break;
    case 'graphql':
      problem = graphqlProblem(response);
      break;
    case 'mcp':
      problem = mcpProblem(request, response);
      break;
    case 'admin':
      if (response.status >= 400) problem = problemDetailsProblem(response);
      else if (!/^application\/json\b/i.test(header(response, 'content-type')) || !parseJson(response.text).ok) problem = 'a success that is not JSON';
      break;
    case 'transport':
      // Requests Node may refuse before the app sees them; whatever reaches the app gets its JSON error.
      if (response.status >= 400 && !isBareNodeRefusal(response) && response.text !== '') {
        const json = oauthErrorProblem(response);
        const problemJson = problemDetailsProblem(response);
        if (json !== null && problemJson !== null && !/^text\/html\b/i.test(header(response, 'content-type'))) problem = json;
      }
      break;
  }
  return problem === null ? null : { check: 'format', message: `${response.status}: ${problem}` };
}

export function statusViolation(response: FuzzResponse): Violation | null {
  return response.status >= 500 || response.status < 100 ? { check: 'server-error', message: `HTTP ${response.status}` } : null;
}

/** The JSON-RPC messages of an /mcp answer: one, a batch, or the events of an SSE stream. */
function jsonRpcMessagesOf(response: FuzzResponse): unknown[] {
  if (/^text\/event-stream\b/i.test(header(response, 'content-type'))) {
    return response.text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .flatMap((line) => {
        const parsed = parseJson(line.slice(5));
        return parsed.ok ? (Array.isArray(parsed.value) ? parsed.value : [parsed.value]) : [];
      });
  }
  const parsed = parseJson(response.text);
  if (!parsed.ok) return [];
  return Array.isArray(parsed.value) ? parsed.value : [parsed.value];
}

/**
 * /mcp's 5xx: a JSON-RPC internal error (-32603) rides in an HTTP 200 (2025 era) or any status (2026-07-28). With the
 * store up, as it is under the fuzz, no request should end in one: a client's mistake is -32602 or -32600.
 */
export function jsonRpcInternalError(family: string, response: FuzzResponse): Violation | null {
  if (family !== 'mcp') return null;
  for (const message of jsonRpcMessagesOf(response)) {
    if (!isObject(message) || !isObject(message.error) || message.error.code !== -32603) continue;
    const text = typeof message.error.message === 'string' ? message.error.message : '';
    return { check: 'server-error', message: `JSON-RPC -32603 (internal error): ${text.replace(/\s+/g, ' ').slice(0, 160)}` };
  }
  return null;
}

