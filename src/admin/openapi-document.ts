import type { Middleware } from 'koa';
import type { SiteState } from '../http/state.js';
import { readContract, servedContract } from './contract.js';

/**
 * GET /openapi.json: the admin API contract as JSON, from a parse of openapi/admin.yaml of its own (openapi-backend
 * dereferences its copy in place), with `servers` set to this site's `{origin}/api/admin/v1` and the OAuth flow URLs
 * absolute on its origin. Public, like the discovery documents; the member GraphQL API is not described there.
 */
export const OPENAPI_DOCUMENT_PATH = '/openapi.json';

export function openapiDocument(): Middleware<SiteState> {
  const template = readContract();
  return async (ctx) => {
    ctx.status = 200;
    ctx.body = JSON.stringify(servedContract(template, ctx.state.site.origin), null, 2);
    ctx.type = 'application/json; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('X-Content-Type-Options', 'nosniff');
  };
}
