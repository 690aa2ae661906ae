import { ALL_SCOPES } from '../../clients/scopes.js';
import type { Site } from '../../sites/sites.js';
import { siteUrl } from '../endpoints.js';
import { BEARER_METHODS, DPOP_SIGNING_ALGS } from './supported.js';

export type ProtectedResourceMetadata = Record<string, string | boolean | readonly string[]>;

/**
 * RFC 9728 2: the protected resource is the whole origin `{base_url}` (member GraphQL, /mcp, the admin API and
 * userinfo), the value clients send as `resource` (RFC 8707) and tokens are bound to (spec, Authentication 7). Its
 * one authorization server is the same origin. Every scope of the spec's table is accepted by some part of it.
 */
export function protectedResourceMetadata(site: Site): ProtectedResourceMetadata {
  return {
    resource: site.origin,
    authorization_servers: [site.origin],
    scopes_supported: ALL_SCOPES,
    bearer_methods_supported: BEARER_METHODS,
    // RFC 9728 2: DPoP-bound tokens are verified everywhere; bearer tokens stay accepted.
    dpop_signing_alg_values_supported: DPOP_SIGNING_ALGS,
    dpop_bound_access_tokens_required: false,
    resource_name: site.name,
    resource_documentation: siteUrl(site.origin, '/auth.md'),
  };
}
