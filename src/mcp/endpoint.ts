import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Middleware, ParameterizedContext } from 'koa';
import type { SiteState } from '../http/state.js';
import { resourceRequestOf } from '../oauth/bearer.js';
import { InsufficientScopeError, missingTokenChallenge } from '../oauth/errors.js';
import type { Services } from '../services.js';
import type { Site } from '../sites/sites.js';
import { accessTo } from './access.js';
import { authenticateMcpCaller } from './auth.js';
import { readMcpBody } from './body.js';
import { answerDirectly } from './direct-answer.js';
import { McpCatalog, type Operation } from './server.js';
import { McpServing } from './serving.js';
import type { McpCaller } from './session.js';

export const MCP_PATH = '/mcp';

type JsonRpcId = string | number | null;

/** The id of a JSON-RPC request (the first of a batch), so that an error answered before the SDK still carries it. */
function requestIdOf(message: unknown): JsonRpcId {
  const first: unknown = Array.isArray(message) ? message[0] : message;
  const id = typeof first === 'object' && first !== null ? (first as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** A JSON-RPC error answered before the SDK is involved (the shape the SDK uses for its own). */
function jsonRpcError(ctx: ParameterizedContext, status: number, code: number, message: string, id: JsonRpcId, headers: Record<string, string> = {}): void {
  ctx.status = status;
  ctx.set(headers);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { jsonrpc: '2.0', error: { code, message }, id };
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
 * How a 2025-era request is answered: one JSON body when the client accepts `application/json` at least as much as
 * `text/event-stream` (the usual `Accept: application/json, text/event-stream` included: plain JSON is the cheaper of
 * the two), an SSE stream when it prefers the stream or refuses JSON (`q=0`). A client must list both types (the
 * transport answers 406 otherwise). 2026-07-28 requests are answered as JSON unless the answer needs a stream.
 */
export function answersWithJson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const json = acceptQuality(accept, 'application/json');
  return json > 0 && json >= acceptQuality(accept, 'text/event-stream');
}

/**
 * DNS-rebinding protection (MCP transport security): a browser's Origin must be the site's own, and the Host header
 * must name the site. Behind a trusted proxy the site was found from X-Forwarded-Host and the raw Host is the proxy's
 * upstream name, so only the Origin is compared there (site resolution already refused hosts of no site).
 */
function rebindingRefusal(headers: IncomingHttpHeaders, site: Site, trustProxy: boolean): string | null {
  if (headers.origin !== undefined && headers.origin !== site.origin) return `Forbidden: the Origin ${headers.origin} is not this school's origin (${site.origin})`;
  const host = new URL(site.origin).host;
  if (!trustProxy && headers.host !== host) return `Forbidden: the Host ${headers.host ?? '(none)'} is not this school's host (${host})`;
  return null;
}

/** The first request of a message (or batch) that the caller may not make yet, and what it needs. */
function unmetOperation(message: unknown, catalog: McpCatalog, caller: McpCaller, site: Site): { operation: Operation; access: 'sign-in' | 'step-up'; id: JsonRpcId } | null {
  for (const item of Array.isArray(message) ? message : [message]) {
    if (typeof item !== 'object' || item === null) continue;
    const { method, params } = item as { method?: unknown; params?: unknown };
    const operation = catalog.operationOf(method, params, site);
    if (operation === null) continue;
    const access = accessTo(caller, operation.scopes);
    if (access === 'sign-in' || access === 'step-up') return { operation, access, id: requestIdOf(item) };
  }
  return null;
}

/** Request headers the SDK reads, copied onto the Web request it gets (Host and Origin were checked here already). */
const FORWARDED_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'mcp-method', 'mcp-name', 'last-event-id'] as const;

function webRequest(ctx: ParameterizedContext, site: Site, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = ctx.req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  // The body was read and parsed here; the SDK gets the parsed value beside this request.
  return new Request(new URL(ctx.originalUrl, site.origin), { method: 'POST', headers, signal });
}

/** The SDK's Web response written through Koa: a JSON body in one piece, an SSE stream piped, nothing for a 202. */
async function writeResponse(ctx: ParameterizedContext, response: Response): Promise<void> {
  response.headers.forEach((value, name) => ctx.set(name, value));
  ctx.status = response.status;
  if (response.body === null) {
    ctx.body = null;
    ctx.status = response.status;
  } else if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    ctx.body = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  } else {
    ctx.body = Buffer.from(await response.arrayBuffer());
  }
}

/**
 * `/mcp` (any method): the Model Context Protocol over Streamable HTTP, both the 2026-07-28 revision and the 2025-era
 * ones (src/mcp/serving.ts), stateless. The steps, in order:
 *
 * 1. who is calling (401 for a bad token, 503 when no verdict can be reached);
 * 2. POST only (405 otherwise: no sessions, no standalone stream);
 * 3. the body: at most 64 KiB of JSON (413, 415, -32700);
 * 4. DNS-rebinding protection (403);
 * 5. access: a member operation without a token answers 401 with the challenge that starts OAuth, one the member's
 *    token lacks scopes for answers 403 `insufficient_scope` naming them all (the step-up);
 * 6. the common tool call or resource read is answered straight from the catalogue (src/mcp/direct-answer.ts), the
 *    SDK answers everything else.
 */
export function mcpEndpoint(services: Services): Middleware<SiteState> {
  const { trustProxy } = services.config;
  const catalog = new McpCatalog(services.variant);
  const serving = new McpServing(catalog, services.logger);
  return async (ctx) => {
    const { site } = ctx.state;
    const caller = await authenticateMcpCaller(services, site, resourceRequestOf(ctx, services.config));
    ctx.state.clientId = caller.authInfo?.clientId;
    if (ctx.method !== 'POST') {
      return jsonRpcError(ctx, 405, -32000, `Method not allowed: ${MCP_PATH} is a stateless MCP endpoint; send JSON-RPC messages with POST`, null, { Allow: 'POST' });
    }

    const body = await readMcpBody(ctx.req);
    if (body.kind === 'too-large') return jsonRpcError(ctx, 413, -32000, 'Request body too large', null);
    if (body.kind === 'not-json') return jsonRpcError(ctx, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json', null);
    if (body.kind === 'invalid-json') return jsonRpcError(ctx, 400, -32700, 'Parse error: Invalid JSON', null);
    const message = body.value;

    const refusal = rebindingRefusal(ctx.req.headers, site, trustProxy);
    if (refusal !== null) return jsonRpcError(ctx, 403, -32000, refusal, requestIdOf(message));

    const unmet = unmetOperation(message, catalog, caller, site);
    if (unmet?.access === 'sign-in') {
      // RFC 6750 3.1: no credentials, so no error code; the resource metadata (RFC 9728 5.1) tells the client where
      // to authorize, and the scope what to ask for.
      const scope = unmet.operation.scopes.join(' ');
      return jsonRpcError(ctx, 401, -32000, `The ${unmet.operation.label} acts for a signed-in member: send a member access token with the scope ${scope} (${site.origin}/auth.md).`, unmet.id, {
        'WWW-Authenticate': missingTokenChallenge(site.origin, { scope }),
      });
    }
    if (unmet?.access === 'step-up') {
      const missing = unmet.operation.scopes.filter((scope) => !caller.scopes.includes(scope));
      throw new InsufficientScopeError(
        site.origin,
        unmet.operation.scopes,
        `the ${unmet.operation.label} needs the scopes ${unmet.operation.scopes.join(' ')} and this token lacks ${missing.join(' ')}: ask the member to authorize again with these scopes`,
      );
    }

    const session = { services, site, log: ctx.state.log, caller, now: new Date() };
    const prefersJson = answersWithJson(ctx.get('accept') || undefined);
    const direct = services.config.mcpDirectAnswers ? await answerDirectly(message, ctx.req.headers, prefersJson, catalog, session) : null;
    if (direct !== null) {
      ctx.status = 200;
      ctx.set('Content-Type', 'application/json');
      ctx.body = direct;
      return;
    }
    // A client that goes away before its answer: abort what still runs for it.
    const abort = new AbortController();
    ctx.res.on('close', () => {
      if (!ctx.res.writableFinished) abort.abort();
    });
    const response = await serving.answer(webRequest(ctx, site, abort.signal), message, session, prefersJson);
    await writeResponse(ctx, response);
  };
}
