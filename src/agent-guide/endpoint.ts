import type { Middleware } from 'koa';
import { DOCS_PATHS } from '../docs/paths.js';
import type { SiteState } from '../http/state.js';
import { MCP_PATH } from '../mcp/endpoint.js';
import { promptsOfVariant, resourcesOfVariant, toolsOfVariant } from '../mcp/server.js';
import { authorizationServerMetadata } from '../oauth/discovery/authorization-server-metadata.js';
import { protectedResourceMetadata } from '../oauth/discovery/protected-resource-metadata.js';
import { OAUTH_PATHS, siteUrl } from '../oauth/endpoints.js';
import type { Services } from '../services.js';
import { renderAgentGuide } from './guide.js';

export const AGENT_GUIDE_PATH = '/auth.md';
export const ADMIN_API_CONTRACT_PATH = '/openapi.json';

/**
 * GET /auth.md: the agent guide of the request's site, written on each request from the same metadata builders the
 * discovery documents use, the MCP tool, resource and prompt registries and the site's settings, so it cannot drift
 * from what the site serves. `serves(path)` tells whether the application routes a GET to a path (the admin API's
 * contract and the HTML API reference are named only once they are served).
 */
export function agentGuideEndpoint(services: Services, serves: (path: string) => boolean): Middleware<SiteState> {
  const { variant } = services;
  return (ctx) => {
    const { site } = ctx.state;
    const origin = site.origin;
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = renderAgentGuide({
      site,
      variant,
      authorizationServer: authorizationServerMetadata(site, variant),
      protectedResource: protectedResourceMetadata(site),
      authorizationServerMetadataUrl: siteUrl(origin, OAUTH_PATHS.authorizationServerMetadata),
      protectedResourceMetadataUrl: siteUrl(origin, OAUTH_PATHS.protectedResourceMetadata),
      openidConfigurationUrl: siteUrl(origin, OAUTH_PATHS.openidConfiguration),
      mcpUrl: siteUrl(origin, MCP_PATH),
      tools: toolsOfVariant(variant),
      resources: resourcesOfVariant(variant),
      prompts: promptsOfVariant(variant),
      memberGraphqlUrl: siteUrl(origin, variant.memberGraphql.path),
      adminApiContractUrl: serves(ADMIN_API_CONTRACT_PATH) ? siteUrl(origin, ADMIN_API_CONTRACT_PATH) : null,
      apiReferenceUrl: serves(DOCS_PATHS.index) ? siteUrl(origin, DOCS_PATHS.index) : null,
    });
  };
}
