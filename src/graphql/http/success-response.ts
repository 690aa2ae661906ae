import type { Response as HttpResponse } from 'graphql-http';
import type { ExecutionResult } from 'graphql';

/** The media type graphql-http answers with for this Accept header (its own negotiation), or null when none fits. */
function acceptedMediaType(accept: string | undefined): string | null {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    if (mediaType === 'application/graphql-response+json' && charset === 'charset=utf-8') return 'application/graphql-response+json; charset=utf-8';
    if ((mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*') && (charset === 'charset=utf-8' || charset === 'charset=utf8')) return 'application/json; charset=utf-8';
  }
  return null;
}

/**
 * Fast path: a result without errors as graphql-http would answer it, serialised without its error replacer (which
 * would visit every value of a large answer for the Error instances only `errors` can hold). Undefined for anything
 * else, which graphql-http answers itself. test/member-graphql-fast-paths.test.ts holds it to graphql-http's answer.
 */
export function successResponse(accept: string | undefined, result: ExecutionResult): HttpResponse | undefined {
  if (result.errors !== undefined || Symbol.asyncIterator in result) return undefined;
  const contentType = acceptedMediaType(accept);
  if (contentType === null) return undefined;
  return [JSON.stringify(result), { status: 200, statusText: 'OK', headers: { 'content-type': contentType } }];
}
