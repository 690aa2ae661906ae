import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Middleware, ParameterizedContext } from 'koa';
import type { SiteState } from '../http/state.js';
import type { Services } from '../services.js';
import type { Site } from '../sites/sites.js';
import { missingTokenChallenge } from '../oauth/errors.js';
import { authenticateMcpCaller } from './auth.js';
import { readMcpBody } from './body.js';
import { JsonExchange, jsonExchangeRequest } from './json-exchange.js';
import { McpToolset } from './server.js';

export const MCP_PATH = '/mcp';

/** A JSON-RPC error answered before the transport is involved (the shape the SDK's transport uses for its own). */
function jsonRpcError(ctx: ParameterizedContext, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  ctx.status = status;
  ctx.set(headers);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { jsonrpc: '2.0', error: { code, message }, id: null };
}

/** The headers the transport reads (content negotiation, DNS-rebinding checks, protocol version); the tools read none. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'host', 'origin', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'] as const;

function transportHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return headers;
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

/** The quality (`q`) an Accept header gives one exact media type; 0 when it is not listed. */
function acceptQuality(accept: string, mediaType: string): number {
  let quality = 0;
  for (const range of accept.split(',')) {
    const [type, ...parameters] = range.split(';');
    if (type?.trim().toLowerCase() !== mediaType) continue;
    const q = parameters.map((parameter) => parameter.trim().toLowerCase()).find((parameter) => parameter.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(value)) quality = Math.max(quality, value);
  }
  return quality;
}

/**
 * How a request is answered: one JSON body when the client accepts `application/json` at least as much as
 * `text/event-stream` (the usual `Accept: application/json, text/event-stream` included: plain JSON is the cheaper of
 * the two), an SSE stream when it prefers the stream or refuses JSON (`q=0`). A client must list both types (the
 * transport answers 406 otherwise).
 */
export function answersWithJson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const json = acceptQuality(accept, 'application/json');
  return json > 0 && json >= acceptQuality(accept, 'text/event-stream');
}

/** The scope the first `tools/call` of a user-bound tool in a message (or batch) needs; null when it calls none. */
function memberToolCalled(message: unknown, toolset: McpToolset): string | null {
  for (const item of Array.isArray(message) ? message : [message]) {
    if (typeof item !== 'object' || item === null || (item as { method?: unknown }).method !== 'tools/call') continue;
    const name = (item as { params?: { name?: unknown } }).params?.name;
    const scope = typeof name === 'string' ? toolset.memberScopeOf(name) : null;
    if (scope !== null) return scope;
  }
  return null;
}

/**
 * `/mcp` (any method): the Model Context Protocol over Streamable HTTP in stateless mode. The variant's tools (their
 * definitions, JSON Schemas and validators) are built once, here; each POST gets a thin SDK server bound to its caller
 * and a fresh transport without sessions, so any instance can serve any request and nothing outlives the request.
 * Requests are answered as one JSON body or as an SSE stream (see `answersWithJson`), notifications with 202; the SDK
 * client reads all of them. GET (a standalone server-to-client stream) and DELETE (ending a session) have no meaning
 * without sessions and answer 405, which the SDK client expects from a stateless server.
 */
export function mcpEndpoint(services: Services): Middleware<SiteState> {
  const { trustProxy } = services.config;
  const toolset = new McpToolset(services.config.variant);
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
    // A member's tool called without any token: 401 with the challenge that points at the resource metadata (RFC 6750
    // 3, RFC 9728 5.1; the MCP authorization spec's discovery), so the client starts OAuth instead of reporting "not
    // found". No error code: the request carried no credentials (RFC 6750 3.1). Listing and public tools stay open.
    const scope = caller.authInfo === null ? memberToolCalled(parsed, toolset) : null;
    if (scope !== null) {
      return jsonRpcError(ctx, 401, -32000, `This tool acts for a signed-in member: send a member access token with the scope ${scope} (${site.origin}/auth.md).`, {
        'WWW-Authenticate': missingTokenChallenge(site.origin, { scope }),
      });
    }

    const server = toolset.serverFor({ services, site, log: ctx.state.log, caller, now: new Date() });
    // A client that goes away before its answer is written: abort what still runs for it. After a complete answer
    // nothing is in flight and the per-request objects are simply dropped.
    ctx.res.on('close', () => {
      if (!ctx.res.writableFinished) void server.close();
    });
    const json = answersWithJson(ctx.get('accept') || undefined);
    const rebinding = rebindingProtection(site, trustProxy);
    const extra = caller.authInfo === null ? {} : { authInfo: caller.authInfo };

    // The common case (one request, a JSON answer): straight to the server and back (src/mcp/json-exchange.ts).
    const single = jsonExchangeRequest(ctx.req, parsed, json, rebinding);
    if (single !== null) {
      const exchange = new JsonExchange(single);
      await server.connect(exchange);
      exchange.deliver({ ...extra, requestInfo: { headers: ctx.req.headers, url: new URL(ctx.originalUrl, site.origin) } });
      const answer = await exchange.answer;
      if (answer === null) return;
      ctx.status = 200;
      ctx.set('Content-Type', 'application/json');
      ctx.body = JSON.stringify(answer);
      return;
    }

    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: json, ...rebinding });
    await server.connect(transport);
    // The transport's own Web API (the body is already parsed), and its answer handed to Koa: a JSON body is written in
    // one piece like any other route's, an SSE stream is piped.
    const request = new Request(new URL(ctx.originalUrl, site.origin), { method: 'POST', headers: transportHeaders(ctx.req) });
    const response = await transport.handleRequest(request, { parsedBody: parsed, ...extra });
    response.headers.forEach((value, name) => ctx.set(name, value));
    if (response.body === null) {
      // An empty answer (202 to notifications): Koa sends no body for an explicit null.
      ctx.body = null;
      ctx.status = response.status;
      return;
    }
    ctx.status = response.status;
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      ctx.body = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
    } else {
      ctx.body = Buffer.from(await response.arrayBuffer());
    }
  };
}
