import type { Middleware } from 'koa';
import { StaticBody } from '../http/compression.js';
import type { SiteState } from '../http/state.js';
import { servedContract } from './contract.js';

/**
 * GET /openapi.json: the admin API contract as JSON, from a parse of openapi/admin.yaml of its own (openapi-backend
 * dereferences its copy in place), with `servers` set to this site's `{origin}/api/admin/v1` and the OAuth flow URLs
 * absolute on its origin. Public, like the discovery documents; the member GraphQL API is not described there.
 */
export { OPENAPI_DOCUMENT_PATH } from './contract.js';

/** How many origins' documents are kept serialized and compressed (about 0.6 MB each). */
const DOCUMENTS_KEPT = 8;

export function openapiDocument(): Middleware<SiteState> {
  // The document of an origin never changes while the process runs: serialized once, compressed once per coding.
  const documents = new Map<string, StaticBody>();
  const documentOf = (origin: string): StaticBody => {
    const kept = documents.get(origin);
    if (kept) return kept;
    const document = new StaticBody(JSON.stringify(servedContract(origin), null, 2));
    const oldest = documents.keys().next();
    if (documents.size >= DOCUMENTS_KEPT && !oldest.done) documents.delete(oldest.value);
    documents.set(origin, document);
    return document;
  };
  return async (ctx) => {
    ctx.status = 200;
    await documentOf(ctx.state.site.origin).answer(ctx);
    ctx.type = 'application/json; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('X-Content-Type-Options', 'nosniff');
  };
}
