/**
 * The fuzz suite's HTTP client. `fetch` normalises away most of what a hostile client sends (duplicated headers, a
 * chosen Host, raw request targets with broken percent-encoding, odd methods), so requests go out through node:http
 * with raw header lists, and the transport family writes its bytes straight to a socket.
 */
import http from 'node:http';
import net from 'node:net';

export type Family = 'token' | 'revocation' | 'registration' | 'authorize' | 'userinfo' | 'graphql' | 'mcp' | 'admin' | 'transport' | 'logout';

export const FAMILIES: readonly Family[] = ['token', 'revocation', 'registration', 'authorize', 'userinfo', 'graphql', 'mcp', 'admin', 'transport', 'logout'];

/** What the row-count property allows a request to change. */
export type WritePolicy =
  /** Nothing, whatever the answer: every request of this kind is invalid or read-only. */
  | 'never'
  /** Rows may change when the answer is a 2xx to a non-GET request (a valid write the generator stumbled on). */
  | 'on-success';

export interface FuzzRequest {
  family: Family;
  /** The endpoint as a template, e.g. "PATCH /api/admin/v1/courses/{courseId}": failures are told apart by it. */
  route: string;
  /** What the generator built, e.g. "form body, duplicated grant_type". */
  label: string;
  method: string;
  /** The request target as sent: may hold broken percent-encoding. */
  target: string;
  /** Sent in this order; names may repeat. A Host header is added unless one is given. */
  headers: Array<[string, string]>;
  body?: Buffer;
  /** Bytes written to the socket as they are (the transport family); method/target/headers/body only describe them. */
  raw?: Buffer;
  writes: WritePolicy;
  /** The request names another origin (Host or a forwarded host): a 404 site_not_found is its expected answer. */
  foreignHost?: boolean;
  /** The interface whose error format applies, when it is not the family's own (raw requests to any path). */
  interface?: Family;
  /** The request breaks HTTP/1.1 framing or header limits: Node's own bare 400/413/431 (no body) is the right answer. */
  breaksFraming?: boolean;
}

export interface FuzzResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body bytes as text (latin1-safe: invalid UTF-8 shows as U+FFFD). */
  text: string;
  elapsedMs: number;
  /** The X-Request-Id the server answered with (its logs use it). */
  requestId: string | null;
}

export interface Target {
  host: string;
  port: number;
  /** The Host header of the site under test, e.g. localhost:PORT. */
  siteHost: string;
}

/** One connection at a time, kept alive between requests like a real client's; a stale socket is retried once. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1 });

const NO_RESPONSE_TIMEOUT_MS = 30_000;

export class NoResponseError extends Error {
  override readonly name = 'NoResponseError';
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly elapsedMs: number,
  ) {
    super(message);
  }
}

function flatHeaders(request: FuzzRequest, target: Target): string[] {
  const flat: string[] = [];
  if (!request.headers.some(([name]) => name.toLowerCase() === 'host')) flat.push('Host', target.siteHost);
  for (const [name, value] of request.headers) flat.push(name, value);
  if (request.body !== undefined && !request.headers.some(([name]) => name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding')) {
    flat.push('Content-Length', String(request.body.length));
  }
  return flat;
}

function sendOnce(request: FuzzRequest, target: Target): Promise<FuzzResponse & { reused: boolean }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let reused = false;
    let settled = false;
    const fail = (error: Error & { code?: string }) => {
      if (settled) return;
      settled = true;
      const wrapped = new NoResponseError(`${error.code ?? error.name}: ${error.message}`, error.code, performance.now() - started) as NoResponseError & { reused?: boolean };
      wrapped.reused = reused;
      reject(wrapped);
    };
    let req: http.ClientRequest;
    try {
      req = http.request({ host: target.host, port: target.port, method: request.method, path: request.target, headers: flatHeaders(request, target), setHost: false, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          if (settled) return;
          settled = true;
          const requestId = res.headers['x-request-id'];
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
            elapsedMs: performance.now() - started,
            requestId: typeof requestId === 'string' ? requestId : null,
            reused,
          });
        });
      });
    } catch (error) {
      // node:http refuses some requests itself (a header value with a control character): the generator's mistake.
      reject(error);
      return;
    }
    req.on('socket', () => {
      reused = req.reusedSocket;
    });
    req.setTimeout(NO_RESPONSE_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${NO_RESPONSE_TIMEOUT_MS} ms`)));
    // The server may answer (413, 401) and close before the whole body is written: the answer still counts.
    req.on('error', fail);
    req.end(request.body);
  });
}

/** Parses an HTTP/1.1 response read off a raw socket (the transport family asks for Connection: close). */
function parseRawResponse(all: Buffer, elapsedMs: number): FuzzResponse {
  let bytes = all;
  // Interim answers (100 Continue) come first; the final answer follows them.
  while (/^HTTP\/1\.[01] 1\d\d /.test(bytes.subarray(0, 16).toString('latin1'))) {
    const end = bytes.indexOf('\r\n\r\n');
    if (end === -1) break;
    bytes = bytes.subarray(end + 4);
  }
  const text = bytes.toString('latin1');
  const headerEnd = text.indexOf('\r\n\r\n');
  const head = headerEnd === -1 ? text : text.slice(0, headerEnd);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string | string[] | undefined> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const existing = headers[name];
    headers[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  let body = headerEnd === -1 ? Buffer.alloc(0) : bytes.subarray(Buffer.byteLength(text.slice(0, headerEnd + 4), 'latin1'));
  if (String(headers['transfer-encoding'] ?? '').toLowerCase() === 'chunked') {
    const parts: Buffer[] = [];
    let rest = body;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd === -1) break;
      const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (!Number.isFinite(size) || size === 0) break;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    body = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    // A pipelined second answer follows the first one's body.
    body = body.subarray(0, Number(headers['content-length']) || 0);
  }
  const requestId = headers['x-request-id'];
  return { status, headers, text: body.toString('utf8'), elapsedMs, requestId: typeof requestId === 'string' ? requestId : null };
}

function sendRaw(raw: Buffer, target: Target): Promise<FuzzResponse> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: target.host, port: target.port });
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const bytes = Buffer.concat(chunks);
      const elapsed = performance.now() - started;
      if (bytes.length === 0) reject(new NoResponseError('the server closed the connection without an answer', 'EMPTY', elapsed));
      else resolve(parseRawResponse(bytes, elapsed));
    };
    const timer = setTimeout(() => {
      socket.destroy();
      if (!done) {
        done = true;
        reject(new NoResponseError(`no answer within ${NO_RESPONSE_TIMEOUT_MS} ms`, 'ETIMEDOUT', performance.now() - started));
      }
    }, NO_RESPONSE_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', finish);
    socket.on('close', finish);
    // A reset after the answer was read is the server closing a connection it refused: the answer counts.
    socket.on('error', () => finish());
    socket.write(raw);
  });
}

/** Sends one fuzz request and reads the whole answer; throws NoResponseError when none came. */
export async function send(request: FuzzRequest, target: Target): Promise<FuzzResponse> {
  if (request.raw) return sendRaw(request.raw, target);
  try {
    return await sendOnce(request, target);
  } catch (error) {
    // A keep-alive socket the server closed between two requests: the request never reached it, send it again.
    if (error instanceof NoResponseError && (error as NoResponseError & { reused?: boolean }).reused && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
      return sendOnce(request, target);
    }
    throw error;
  }
}

export function closeClient(): void {
  agent.destroy();
}
