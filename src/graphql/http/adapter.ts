import type { IncomingMessage } from 'node:http';
import type { ParameterizedContext } from 'koa';
import type { Handler } from 'graphql-http';
import { readBodyBytes, readFailureError } from '../../http/body.js';
import { AppError } from '../../shared/errors.js';
import { notModified } from '../trusted-documents/cacheable-answer.js';

/**
 * The Koa side of graphql-http: hands a request (its body read here, at most `maxBodyBytes`) to a graphql-http
 * handler with `context`, and writes the answer so that every answer of the endpoint is JSON and never cached, but for
 * the answers the handler made cacheable (with an ETag, answered 304 when the client's copy is current).
 */
export async function serveGraphqlHttp<Context>(ctx: ParameterizedContext, handle: Handler<IncomingMessage, Context>, context: Context, maxBodyBytes: number): Promise<void> {
  let body: string | null = null;
  if (ctx.method === 'POST') {
    // Read here, not by a route's body declaration, so that oversize and malformed JSON get GraphQL-over-HTTP answers.
    const read = await readBodyBytes(ctx.req, { limit: maxBodyBytes });
    if (read.kind !== 'bytes') {
      const failure = read.kind === 'too_large' ? new AppError(413, 'request_too_large', `the request body is larger than ${read.limit} bytes`) : readFailureError(read);
      ctx.status = failure.status;
      ctx.body = { errors: [{ message: failure.message, extensions: { code: failure.code } }] };
      return;
    }
    // As sent, byte order mark included: graphql-http parses the JSON.
    body = read.bytes.toString('utf8');
  }
  const [responseBody, init] = await handle({ method: ctx.method, url: ctx.url, headers: ctx.headers, body, raw: ctx.req, context });
  ctx.status = init.status;
  if (init.headers) ctx.set(init.headers);
  // Never cached, except what the handler made cacheable (a GET by document id: src/graphql/trusted-documents/cacheable-answer.ts).
  if (!init.headers?.['cache-control']) ctx.set('Cache-Control', 'no-store');
  if (responseBody === null) {
    // graphql-http refuses a wrong Content-Type (415) or Accept (406) with a status text only: every answer of this
    // endpoint is JSON, so the refusal becomes a GraphQL error document too.
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = JSON.stringify({ errors: [{ message: init.statusText || 'the request was refused' }] });
    return;
  }
  // A few refusals (a mutation over GET: 405) carry a JSON body but no Content-Type.
  if (!ctx.response.get('Content-Type')) ctx.type = 'application/json; charset=utf-8';
  // A revalidation whose ETag still matches: 304 without the body (RFC 9110 13.1.2, 15.4.5).
  const etag = ctx.response.get('ETag');
  if (etag && ctx.method === 'GET' && ctx.status === 200 && notModified(ctx.get('If-None-Match'), etag)) {
    ctx.status = 304;
    return;
  }
  ctx.body = responseBody;
}
