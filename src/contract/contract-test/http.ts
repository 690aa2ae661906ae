import { fail, show } from './expectations.js';

/** One answer, read in full. */
export interface HttpAnswer {
  method: string;
  url: URL;
  status: number;
  headers: Headers;
  text: string;
}

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** The reason a request got no answer, for a report row: the connection error's code, or the timeout. */
export function describeNetworkError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error as Error & { cause?: unknown }).cause : undefined;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message;
  }
  if (cause !== undefined) return String(cause);
  return error instanceof Error ? error.message : String(error);
}

/**
 * Node's fetch with a deadline per request (connect, headers and body), redirects not followed (a token is never
 * carried to another place than the one asked for), and network errors turned into failing checks with a clear detail.
 */
export class HttpClient {
  constructor(readonly timeoutMs: number) {}

  /** fetch with this client's deadline; for libraries that take a fetch function (graphql-http's audits). */
  readonly fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    fetch(input, { redirect: 'manual', ...init, signal: AbortSignal.timeout(this.timeoutMs) });

  async request(url: string | URL, request: HttpRequest = {}): Promise<HttpAnswer> {
    const method = request.method ?? 'GET';
    const target = new URL(url);
    try {
      const response = await this.fetch(target, { method, headers: request.headers, body: request.body });
      const text = await response.text();
      return { method, url: target, status: response.status, headers: response.headers, text };
    } catch (error) {
      return fail(`${method} ${target.href}: ${describeNetworkError(error, this.timeoutMs)}`);
    }
  }

  /** GET a JSON document that must answer 200 with one of `mediaTypes`. */
  async getJson(url: string | URL, mediaTypes: readonly string[] = ['application/json']): Promise<{ answer: HttpAnswer; body: unknown }> {
    const answer = await this.request(url, { headers: { accept: mediaTypes.join(', ') } });
    expectStatus(answer, 200);
    const mediaType = mediaTypeOfAnswer(answer);
    if (!mediaTypes.includes(mediaType)) fail(`${where(answer)}: Content-Type ${mediaType || '(none)'}, expected ${mediaTypes.join(' or ')}`);
    return { answer, body: parseJsonAnswer(answer) };
  }
}

export function where(answer: HttpAnswer): string {
  return `${answer.method} ${answer.url.pathname} → ${answer.status}`;
}

export function mediaTypeOfAnswer(answer: HttpAnswer): string {
  return (answer.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function expectStatus(answer: HttpAnswer, ...statuses: number[]): void {
  if (statuses.includes(answer.status)) return;
  const location = answer.headers.get('location');
  fail(`${where(answer)}, expected ${statuses.join(' or ')}${location ? ` (redirects to ${location})` : ''}${answer.text ? `: ${show(answer.text.slice(0, 200))}` : ''}`);
}

export function parseJsonAnswer(answer: HttpAnswer): unknown {
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    return fail(`${where(answer)}: the body is not JSON: ${show(answer.text.slice(0, 200))}`);
  }
}

/** The parameters of a `Bearer` challenge (RFC 6750 3), or null when the header is not one. */
export function bearerChallenge(header: string | null): Record<string, string> | null {
  if (header === null || !/^\s*Bearer(\s|$)/i.test(header)) return null;
  const params: Record<string, string> = {};
  for (const match of header.matchAll(/([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    const name = match[1];
    if (name !== undefined) params[name.toLowerCase()] = (match[2] ?? match[3] ?? '').replace(/\\(.)/g, '$1');
  }
  return params;
}
