import type { Middleware } from 'koa';

/** Answers at least this long (in UTF-16 code units) leave as bytes; a syllabus of the member API is about 100 KB. */
export const ANSWER_BYTES_THRESHOLD = 16 * 1024;

/** A JSON answer as Koa would serialize it itself: a plain object or an array. */
function isPlainJson(body: unknown): body is object {
  return Array.isArray(body) || (typeof body === 'object' && body !== null && Object.getPrototypeOf(body) === Object.prototype);
}

/**
 * A large answer is encoded once, here, to the bytes that are sent, and its text dropped at once. Left as text, Koa
 * measures it for Content-Length, which makes V8 copy a serialized answer (built as a tree of pieces) into one flat
 * string on the JavaScript heap, and keeps that copy until the answer has been written to the socket: under load it
 * can outlive young-generation collections and be copied, then promoted, with everything else the request still holds.
 * A Buffer is memory outside the heap that the collector never copies. Small answers stay text: Node writes them with
 * the headers in one piece. JSON answers are serialized here rather than by Koa, to know their length; the bytes are
 * the same.
 */
export function largeAnswersAsBytes(): Middleware {
  return async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    const text = typeof body === 'string' ? body : isPlainJson(body) ? JSON.stringify(body) : null;
    if (text === null) return;
    if (text.length >= ANSWER_BYTES_THRESHOLD) ctx.body = Buffer.from(text, 'utf8');
    else if (text !== body) ctx.body = text;
  };
}
