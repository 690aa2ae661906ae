import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import { adminInterface, openapiDocument, OPENAPI_DOCUMENT_PATH } from './admin/index.js';
import { agentGuideEndpoint, AGENT_GUIDE_PATH } from './agent-guide/endpoint.js';
import { demoAssetRoutes } from './demo/asset-routes.js';
import { docsRoutes } from './docs/routes.js';
import { memberGraphqlEndpoint } from './graphql/endpoint.js';
import { graphqlHttpErrors } from './graphql/errors.js';
import { memberSchemaDocumentPath, memberSchemaDocumentRoute } from './graphql/schema-document.js';
import { closeConnectionsWhileDraining } from './http/drain.js';
import { largeAnswersAsBytes } from './http/answer-bytes.js';
import { responseCompression } from './http/compression.js';
import { errorHandling, jsonOrPageErrors } from './http/errors.js';
import { healthCheck, readinessCheck } from './http/health.js';
import { limitRequestsInFlight } from './http/in-flight-limit.js';
import { routeByPrefix } from './http/prefix-routing.js';
import { requestLogging } from './http/request-id.js';
import { siteResolution } from './http/site-resolution.js';
import type { RequestState, SiteState } from './http/state.js';
import { MCP_PATH, mcpEndpoint } from './mcp/endpoint.js';
import { httpMetrics } from './http/metrics.js';
import { OAUTH_API_PREFIX } from './oauth/endpoints.js';
import { oauthRoutes } from './oauth/routes.js';
import { connectedAppsRoutes } from './pages/connected-apps/routes.js';
import { homePage } from './pages/home.js';
import type { Services } from './services.js';
import { createSiteCache } from './sites/site-cache.js';
import { storageRoutes } from './uploads/serve.js';

export type { Services } from './services.js';

/** The whole HTTP surface: process-wide routes first, then everything that belongs to the site of the request's origin. */
export function createApp(services: Services): Koa<RequestState> {
  const { config, db, logger } = services;
  const app = new Koa<RequestState>();
  app.proxy = config.trustProxy;
  // Behind a trusted proxy, ctx.ip is the address the proxy saw (the last X-Forwarded-For hop), not a client-supplied one.
  app.maxIpsCount = 1;
  app.silent = true;

  // First, so that every answer during a shutdown's drain says Connection: close, whatever answers it.
  app.use(closeConnectionsWhileDraining(services.lifecycle));
  app.use(httpMetrics(services.metrics));
  app.use(requestLogging(logger));
  // Outside compression, so that it sees the answer as it leaves: a stream once compressed, otherwise text or bytes.
  app.use(largeAnswersAsBytes());
  app.use(responseCompression());
  const graphqlPath = services.variant.memberGraphql.path;
  const memberSchemaPath = memberSchemaDocumentPath(services.variant);
  const probePaths = { health: '/healthz', readiness: '/readyz' } as const;
  // The OAuth JSON error unless an interface renders its own; a page for a browser, except where clients read JSON
  // whatever they accept: the APIs (/api/…), discovery, the member API, /mcp, the contract, the agent guide, the probes.
  const machinePaths = { prefixes: ['/api/', '/.well-known/'], paths: [graphqlPath, memberSchemaPath, MCP_PATH, OPENAPI_DOCUMENT_PATH, AGENT_GUIDE_PATH, probePaths.health, probePaths.readiness] };
  app.use(errorHandling(jsonOrPageErrors(machinePaths)));

  // The process-wide probes, answered for any Host; checked by hand, not by a router every request passes through.
  const probes: Record<string, Middleware<RequestState>> = { [probePaths.health]: healthCheck(db), [probePaths.readiness]: readinessCheck(db, services.lifecycle) };
  app.use((ctx, next) => {
    const probe = ctx.method === 'GET' || ctx.method === 'HEAD' ? probes[ctx.path] : undefined;
    return probe ? probe(ctx, next) : next();
  });

  // Past the probes (which never wait), at most so many requests are handled at once, the rest queued in order.
  app.use(limitRequestsInFlight(config.requestsInFlight));

  // Past this point every request belongs to the site of its origin, or gets a 404 naming the origin.
  const siteApp = app.use<SiteState>(siteResolution(db, createSiteCache(config.siteCacheSeconds * 1000, { capacity: config.siteCacheSize })));
  // The admin API (/api/admin/…) and the admin area (/admin…) answer before the site's routes.
  siteApp.use(adminInterface(services));
  // No body is read here: each route that takes one declares it (acceptBody, src/http/body.ts) or reads it itself.
  const siteRoutes = new Router<SiteState>();
  siteRoutes.get('/', homePage(services.variant));
  siteRoutes.get(OPENAPI_DOCUMENT_PATH, openapiDocument());
  siteRoutes.use(docsRoutes(services).routes());
  const oauth = oauthRoutes(services);
  siteRoutes.use(oauth.pages.routes());
  siteRoutes.use(connectedAppsRoutes(services).routes());
  siteRoutes.use(storageRoutes(db).routes());
  siteRoutes.use(demoAssetRoutes().routes());
  const graphql = memberGraphqlEndpoint(services);
  // A failure that escapes the member API (authentication's verdict) still answers in its format.
  const graphqlErrors = errorHandling(graphqlHttpErrors);
  siteRoutes.get(graphqlPath, graphqlErrors, graphql);
  siteRoutes.post(graphqlPath, graphqlErrors, graphql);
  siteRoutes.get(memberSchemaPath, memberSchemaDocumentRoute(services.variant));
  siteRoutes.all(MCP_PATH, mcpEndpoint(services));
  siteRoutes.get(AGENT_GUIDE_PATH, agentGuideEndpoint(services, (path) => siteRoutes.match(path, 'GET').route));
  // The token-side endpoints, the busiest, are routed apart from the site's other routes (same answers; fewer patterns tested).
  siteApp.use(routeByPrefix(OAUTH_API_PREFIX, oauth.api, siteRoutes));

  return app;
}
