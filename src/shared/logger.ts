import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

export const REDACTED = '[Redacted]';

/**
 * Names whose value is a credential wherever it appears, compared case-insensitively: HTTP headers, OAuth request
 * parameters (RFC 6749 4.1.3, 6; RFC 7636 4.5; RFC 7009 2.1 `token`) and response members (RFC 6749 5.1; OpenID
 * Connect Core 3.1.3.3 `id_token`).
 */
const SECRET_NAMES = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'client_secret', 'refresh_token', 'access_token', 'id_token', 'token', 'code_verifier', 'password']);

/** How deep the walk goes; deeper values are logged as they are (our log objects are two or three levels deep). */
const MAX_DEPTH = 8;

const SECRET_PARAM_NAMES = 'code|code_verifier|access_token|refresh_token|id_token|client_secret|password|token';
/** `code=…` in a URL query or fragment, or in an application/x-www-form-urlencoded body. */
const SECRET_PARAM = new RegExp(`(^|[?&#;])(${SECRET_PARAM_NAMES})=[^&#\\s"'<>]*`, 'gi');
/** `"client_secret": "…"` in a JSON text (a raw request body quoted in an error or a log line). */
const SECRET_JSON_MEMBER = new RegExp(`"(${SECRET_PARAM_NAMES})"\\s*:\\s*"(?:[^"\\\\]|\\\\.)*"`, 'gi');
/** RFC 6750 2.1 / RFC 7617 credentials spelled out in text (b64token charset). */
const CREDENTIALS = /\b(Bearer|Basic)\s+[\w\-.~+/]+=*/gi;

/** Each pattern above needs one of these; most logged strings (methods, paths, origins, messages) have none. */
const MAY_HOLD_SECRET = /[="]|bearer|basic/i;

/**
 * Masks credentials inside free text: a raw URL with `?code=` or `#access_token=`, a form or JSON body kept as a string
 * on an error, an Authorization header value quoted in a message. Redaction paths only see whole values by name.
 */
export function maskSecretsInText(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  return text
    .replace(SECRET_PARAM, (_, separator: string, name: string) => `${separator}${name}=${REDACTED}`)
    .replace(SECRET_JSON_MEMBER, (_, name: string) => `"${name}":"${REDACTED}"`)
    .replace(CREDENTIALS, (_, scheme: string) => `${scheme} ${REDACTED}`);
}

/** Objects whose own enumerable properties are what JSON.stringify writes: not errors (their serializer handles them) nor toJSON types. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !(value instanceof Error) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * A copy with every credential replaced by REDACTED: members named in SECRET_NAMES at any depth, `code` members,
 * and credentials inside strings (maskSecretsInText). `code` stays on a serialized error itself (`err.code`,
 * `err.cause.code`: ECONNREFUSED, ER_DUP_ENTRY, invalid_request), which the logs exist to show; anywhere else (a
 * query, a form, a body, an HTTP client's config) it is an authorization code (RFC 6749 4.1.2).
 */
function redact(value: unknown, depth: number, isSerializedError: boolean): unknown {
  if (typeof value === 'string') return maskSecretsInText(value);
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1, isSerializedError));
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const name = key.toLowerCase();
    if (SECRET_NAMES.has(name) || (name === 'code' && !isSerializedError)) copy[key] = REDACTED;
    else copy[key] = redact(item, depth + 1, isSerializedError && (key === 'cause' || key === 'aggregateErrors'));
  }
  return copy;
}

/** Log objects masked where they were built (maskedFields): the formatter writes them as they are. */
const MASKED_ALREADY = new WeakSet<object>();

/**
 * A flat log object of scalars masked as redact would mask it (a credential's name gets REDACTED, every string
 * maskSecretsInText), done where the object is built so that the formatter need not walk and copy it again: the
 * access line, written for every request, is such an object.
 */
export function maskedFields<Fields extends Record<string, string | number | boolean | undefined>>(fields: Fields): Fields {
  const masked: Record<string, string | number | boolean | undefined> = fields;
  for (const key in masked) {
    const value = masked[key];
    const name = key.toLowerCase();
    if (SECRET_NAMES.has(name) || name === 'code') masked[key] = REDACTED;
    else if (typeof value === 'string') masked[key] = maskSecretsInText(value);
  }
  MASKED_ALREADY.add(masked);
  return fields;
}

/** The log line's time as pino's isoTime writes it, formatted once per millisecond (several lines share one when busy). */
let isoTimeOf = { epochMs: NaN, field: '' };
function isoTime(): string {
  const now = Date.now();
  if (now !== isoTimeOf.epochMs) isoTimeOf = { epochMs: now, field: `,"time":"${new Date(now).toISOString()}"` };
  return isoTimeOf.field;
}

/** pino's error serializer (type, message, stack, cause, own properties), then redact. */
function serializeError(error: Error): unknown {
  const serialized = pino.stdSerializers.err(error);
  return redact(serialized, 0, true);
}

/**
 * stdout is written in batches: a write per line (pino's default) cost about a sixth of a cheap request's time, in
 * this process and in whatever reads the other end. Lines go out once LOG_BATCH_BYTES have gathered or LOG_FLUSH_MS
 * after they were logged, whichever comes first; pino writes what is left when the process exits.
 */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 200;

/**
 * Structured JSON logs on stdout (or `destination`), one line per event, with credentials redacted (redact above) in
 * the logged object, errors and the message. Child bindings are not (pino skips the formatter for them): bind ids only. One walk of the object does it: pino's own `redact`
 * needs a path per depth (`*.password`, `*.*.password`, …) and, with this many names, cost 100-200 µs per line, about
 * twenty times the rest of the line, and it cannot keep `err.code` while hiding every other `code`.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'schoolgate' },
    timestamp: isoTime,
    serializers: { err: serializeError },
    formatters: { log: (object) => (MASKED_ALREADY.has(object) ? object : (redact(object, 0, false) as Record<string, unknown>)) },
    hooks: {
      logMethod(args, method) {
        for (let index = 0; index < args.length; index += 1) {
          const arg: unknown = args[index];
          if (typeof arg === 'string') args[index] = maskSecretsInText(arg);
        }
        method.apply(this, args);
      },
    },
  };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }));
}
