import { createHash } from 'node:crypto';
import type { Response as HttpResponse } from 'graphql-http';

/**
 * A successful answer to a GET by document id, made cacheable: the URL names the whole operation (id, variables), so
 * a cache can keep the answer. It is one member's data, so only a private cache may (RFC 9111 5.2.2.7 `private`), and
 * it must ask again every time (`no-cache`, RFC 9111 5.2.2.4): a member's data changes without the URL changing. The
 * strong ETag (RFC 9110 8.8.3) lets the revalidation end in 304 Not Modified without the body. The answer varies with
 * the token and the negotiated media type (RFC 9110 12.5.5 `Vary`).
 */
export function cacheableAnswer([body, init]: HttpResponse): HttpResponse {
  if (typeof body !== 'string' || init.status !== 200) return [body, init];
  const etag = `"${createHash('sha256').update(body, 'utf8').digest('base64url')}"`;
  return [body, { ...init, headers: { ...init.headers, 'cache-control': 'private, no-cache', vary: 'Authorization, Accept', etag } }];
}

/**
 * Whether a GET's `If-None-Match` names the answer's ETag (RFC 9110 13.1.2: the weak comparison, `*` matches any).
 * A request's `Cache-Control: no-cache` does not change this: it asks caches to revalidate (RFC 9111 5.2.1.4), which
 * is what a conditional request to this server is, and fetch() adds it to every request it sends with If-None-Match.
 */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}
