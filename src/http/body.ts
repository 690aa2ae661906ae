import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import type { DefaultState, Middleware, ParameterizedContext } from 'koa';
import { AppError } from '../shared/errors.js';

/**
 * The one request-body reader. Every interface reads its body through here: the bytes with a size limit, then JSON or
 * an urlencoded form, each step answering a typed outcome rather than throwing, so each interface renders a failure
 * in its own error format. Routes of the OAuth server and the site's pages declare what they read with `acceptBody`.
 */

/** 64 KiB: the largest JSON or form body of the OAuth endpoints, the pages and the admin API. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

export interface ReadOptions {
  /** The most bytes read (after decompression); one more and the outcome is too_large. */
  limit: number;
  /** Decompress a gzip, deflate or br Content-Encoding (RFC 9110 8.4); otherwise the bytes are taken as sent. */
  decodeContentEncoding?: boolean;
}

/** Why a body could not be read at all. */
export type ReadFailure =
  | { kind: 'too_large'; limit: number }
  | { kind: 'unsupported_encoding'; encoding: string }
  /** A Content-Encoding whose bytes do not decompress (zlib's message). */
  | { kind: 'undecodable'; message: string };

export type BytesOutcome = { kind: 'bytes'; bytes: Buffer } | ReadFailure;

export type JsonOutcome = { kind: 'json'; value: unknown } | { kind: 'malformed'; message: string };

export type FormOutcome = { kind: 'form'; params: Map<string, string> } | { kind: 'repeated'; name: string };

function decodingStream(req: IncomingMessage): Readable | { kind: 'unsupported_encoding'; encoding: string } {
  const encoding = req.headers['content-encoding'] || 'identity';
  switch (encoding) {
    case 'identity':
      return req;
    case 'gzip':
    case 'deflate':
      return req.pipe(createUnzip());
    case 'br':
      return req.pipe(createBrotliDecompress());
    default:
      return { kind: 'unsupported_encoding', encoding };
  }
}

function isZlibError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('Z_');
}

/**
 * The body's bytes, at most `limit` of them. A Content-Length over the limit is refused before anything is read; a
 * body running past it stops being buffered and is drained, not destroyed (destroying the request mid-body makes Koa
 * replace the answer with a bare 500). A client gone before the end of its body rejects: there is no one to answer.
 */
export function readBodyBytes(req: IncomingMessage, options: ReadOptions): Promise<BytesOutcome> {
  const { limit } = options;
  const identity = !options.decodeContentEncoding || (req.headers['content-encoding'] || 'identity') === 'identity';
  const declared = req.headers['content-length'];
  if (identity && declared !== undefined && Number(declared) > limit) return Promise.resolve({ kind: 'too_large', limit });
  // A stream already read to its end emits nothing more: never wait for it.
  if (req.readableEnded) return Promise.resolve({ kind: 'bytes', bytes: Buffer.alloc(0) });
  // A request whose client left before its body was read has been destroyed: no data, end or close will come.
  if (req.destroyed) return Promise.reject(new Error('the client closed the connection before the end of the request body'));
  const source = options.decodeContentEncoding ? decodingStream(req) : req;
  if (!('on' in source)) return Promise.resolve(source);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      req.off('close', onClose);
      // A decompressor given up on may still fail on what is left in it: nobody waits for it any more.
      if (source !== req) source.on('error', () => undefined);
    };
    function onData(chunk: Buffer | string): void {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size <= limit) {
        chunks.push(bytes);
        return;
      }
      stop();
      if (source !== req) req.unpipe();
      req.resume();
      resolve({ kind: 'too_large', limit });
    }
    function onEnd(): void {
      stop();
      resolve({ kind: 'bytes', bytes: Buffer.concat(chunks, size) });
    }
    function onError(error: Error): void {
      stop();
      if (isZlibError(error)) {
        req.unpipe();
        req.resume();
        resolve({ kind: 'undecodable', message: error.message });
      } else reject(error);
    }
    // A request read to its end closes too (before a decompressor has flushed): only a close before the end is a loss.
    function onClose(): void {
      if (req.readableEnded) return;
      stop();
      reject(new Error('the client closed the connection before the end of the request body'));
    }
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', onError);
    req.on('close', onClose);
  });
}

/** UTF-8 text without a leading byte order mark; malformed sequences become U+FFFD. */
export function bodyText(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** RFC 8259 2: insignificant whitespace, then the first character of an object or an array. */
const OBJECT_OR_ARRAY = /^[ \t\n\r]*(\[|\{)/;
/** A `"__proto__":` key, escapes included: only then is the parsed value scanned for one. */
const PROTO_KEY = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

function hasProtoKey(value: unknown): boolean {
  let level: unknown[] = [value];
  while (level.length > 0) {
    const next: unknown[] = [];
    for (const node of level) {
      if (node === null || typeof node !== 'object') continue;
      if (Object.prototype.hasOwnProperty.call(node, '__proto__')) return true;
      next.push(...Object.values(node));
    }
    level = next;
  }
  return false;
}

export interface JsonOptions {
  /** Only an object or an array at the top (an empty text is then an empty object). */
  objectOrArray?: boolean;
  /** A `__proto__` key anywhere is malformed: a parsed body may be merged into objects later (prototype pollution). */
  refuseProtoKeys?: boolean;
}

export function parseJson(text: string, options: JsonOptions = {}): JsonOutcome {
  if (options.objectOrArray) {
    if (text === '') return { kind: 'json', value: {} };
    if (!OBJECT_OR_ARRAY.test(text)) return { kind: 'malformed', message: 'invalid JSON, only supports object and array' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'malformed', message: (error as Error).message };
  }
  if (options.refuseProtoKeys && PROTO_KEY.test(text) && hasProtoKey(value)) return { kind: 'malformed', message: 'Object contains forbidden prototype property' };
  return { kind: 'json', value };
}

/**
 * An urlencoded form (or query string) whose parameters may each appear once (RFC 6749 3.1 and 3.2: "Request and
 * response parameters MUST NOT be included more than once"); parameters with empty values count as omitted.
 */
export function parseSingleValuedForm(text: string): FormOutcome {
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (params.has(name)) return { kind: 'repeated', name };
    if (value !== '') params.set(name, value);
  }
  return { kind: 'form', params };
}

/** An urlencoded form whose fields may repeat (a group of checkboxes). */
export function parseFormFields(text: string): URLSearchParams {
  return new URLSearchParams(text);
}

/** JSON media types read as JSON where a route accepts JSON. */
export const JSON_MEDIA_TYPES = ['application/json', 'application/json-patch+json', 'application/vnd.api+json', 'application/csp-report', 'application/scim+json'];
export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** What a route that declared its body got: nothing it reads, a JSON value, or the text of a form. */
export type DeclaredBody = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'form'; text: string };

export interface BodyDeclaration {
  /** Read JSON bodies, up to this many bytes. */
  json?: number;
  /** Read urlencoded forms, up to this many bytes. */
  form?: number;
}

/** A body that could not be read, as the JSON error every route outside the admin API, /mcp and GraphQL answers. */
export function readFailureError(failure: ReadFailure | { kind: 'malformed'; message: string }): AppError {
  switch (failure.kind) {
    case 'too_large':
      return new AppError(413, 'request_too_large', 'request entity too large');
    case 'unsupported_encoding':
      return new AppError(415, 'invalid_request', `Unsupported Content-Encoding: ${failure.encoding}`);
    case 'undecodable':
      return new AppError(400, 'invalid_request', `the request body could not be decoded as its Content-Encoding says: ${failure.message}`);
    case 'malformed':
      return new AppError(400, 'invalid_request', failure.message);
  }
}

const declaredBodies = new WeakMap<object, DeclaredBody>();

/** The media type of the Content-Type header, lowercase, without parameters ('' when there is none). */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * The body a route reads, declared where it is mounted: `acceptBody({ form: DEFAULT_BODY_LIMIT })`. Bodies of the
 * declared media types are read before the route runs (a failure answers at once with readFailureError); a body of
 * another type is left unread, for the route to refuse in its own words. The route gets it from declaredBody(ctx).
 */
export function acceptBody<State = DefaultState>(declaration: BodyDeclaration): Middleware<State> {
  return async (ctx, next) => {
    let body: DeclaredBody = { kind: 'none' };
    // A Content-Type naming JSON is read even with an empty body (an empty object); a form needs a body (ctx.is).
    if (declaration.json !== undefined && JSON_MEDIA_TYPES.includes(mediaTypeOf(ctx.get('Content-Type')))) {
      const read = await readBodyBytes(ctx.req, { limit: declaration.json, decodeContentEncoding: true });
      if (read.kind !== 'bytes') throw readFailureError(read);
      const parsed = parseJson(bodyText(read.bytes), { objectOrArray: true, refuseProtoKeys: true });
      if (parsed.kind === 'malformed') throw readFailureError(parsed);
      body = { kind: 'json', value: parsed.value };
    } else if (declaration.form !== undefined && ctx.is(FORM_MEDIA_TYPE) !== false) {
      const read = await readBodyBytes(ctx.req, { limit: declaration.form, decodeContentEncoding: true });
      if (read.kind !== 'bytes') throw readFailureError(read);
      body = { kind: 'form', text: bodyText(read.bytes) };
    }
    declaredBodies.set(ctx.request, body);
    await next();
  };
}

/** The body acceptBody read for this request; a route that declared none has a programming error. */
export function declaredBody(ctx: ParameterizedContext): DeclaredBody {
  const body = declaredBodies.get(ctx.request);
  if (body === undefined) throw new Error(`${ctx.method} ${ctx.path} reads a request body its route did not declare (acceptBody)`);
  return body;
}
