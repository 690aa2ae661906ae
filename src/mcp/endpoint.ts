import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Middleware, ParameterizedContext } from 'koa';
import type { SiteState } from '../http/state.js';
import type { Services } from '../services.js';
import type { Site } from '../sites/sites.js';
import { authenticateMcpCaller } from './auth.js';
import { readMcpBody, toolRequestsOf } from './body.js';
import { buildMcpServer } from './server.js';

export const MCP_PATH = '/mcp';

/** A JSON-RPC error answered before the transport is involved (the shape the SDK's transport uses for its own). */
function jsonRpcError(ctx: ParameterizedContext, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  ctx.status = status;
  ctx.set(headers);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { jsonrpc: '2.0', error: { code, message }, id: null };
}

/**
 * DNS-rebinding protection (MCP transport security): a browser's Origin must be the site's own, and the Host header
 * must name the site. Behind a trusted proxy the site was found from X-Forwarded-Host and the raw Host is the proxy's
 * upstream name, so only the Origin is compared there (site resolution already refused hosts of no site).
 */
function rebindingProtection(site: Site, trustProxy: boolean) {
  return {
    enableDnsRebindingProtection: true,
    allowedOrigins: [site.origin],
    ...(trustProxy ? {} : { allowedHosts: [new URL(site.origin).host] }),
  };
}

/**
 * `/mcp` (any method): the Model Context Protocol over Streamable HTTP in stateless mode. Each POST gets a fresh
 * McpServer with the tools its caller may use and a fresh transport without sessions, so any instance can serve any
 * request and nothing is kept in process memory. Requests are answered as an SSE stream or, for notifications, 202;
 * the SDK client reads both. GET (a standalone server-to-client stream) and DELETE (ending a session) have no meaning
 * without sessions and answer 405, which the SDK client expects from a stateless server.
 */
export function mcpEndpoint(services: Services): Middleware<SiteState> {
  const { trustProxy } = services.config;
  return async (ctx) => {
    const { site } = ctx.state;
    // First the verdict on the token: 401 and 503 come from here through the error middleware.
    const caller = await authenticateMcpCaller(services, site, ctx.get('authorization') || undefined);
    if (ctx.method !== 'POST') {
      jsonRpcError(ctx, 405, -32000, `Method not allowed: ${MCP_PATH} is a stateless MCP endpoint; send JSON-RPC messages with POST`, { Allow: 'POST' });
      return;
    }
    const body = await readMcpBody(ctx.req);
    if (body.kind === 'too-large') return jsonRpcError(ctx, 413, -32000, 'Request body too large');
    if (body.kind === 'invalid-json') return jsonRpcError(ctx, 400, -32700, 'Parse error: Invalid JSON');
    const parsed = body.kind === 'json' ? body.value : null;
    const { calledTools, listsTools } = toolRequestsOf(parsed);

    const server = buildMcpServer({ services, site, log: ctx.state.log, caller, now: new Date() }, calledTools, listsTools);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false, ...rebindingProtection(site, trustProxy) });
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    const req: IncomingMessage & { auth?: AuthInfo } = ctx.req;
    if (caller.authInfo !== null) req.auth = caller.authInfo;
    // From here the transport writes the response itself.
    ctx.respond = false;
    try {
      await transport.handleRequest(req, ctx.res, parsed);
    } catch (error) {
      if (!ctx.res.headersSent) {
        ctx.respond = true;
        throw error;
      }
      ctx.state.log.error({ err: error }, 'mcp transport failed after answering');
      ctx.res.end();
    }
  };
}
