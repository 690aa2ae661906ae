import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpHttpHandler, type Server } from '@modelcontextprotocol/server';
import type { Logger } from '../shared/logger.js';
import type { McpCatalog } from './server.js';
import type { McpSession } from './session.js';

/**
 * Both protocol eras from one endpoint, through the SDK's v2 server package:
 *
 * - **2026-07-28** (every request carries the `_meta` envelope): the SDK's `createMcpHandler`. It answers
 *   `server/discover`, validates the envelope and the `Mcp-Method`/`Mcp-Name` headers against the body, negotiates the
 *   revision (naming the ones it serves), adds `ttlMs`/`cacheScope` to list results and echoes each request's id in
 *   every error. It is stateless by design: each request gets a server from the factory and nothing outlives it.
 * - **2025-11-25 and earlier** (`initialize` and the requests after it, no envelope): the SDK's Streamable HTTP
 *   transport in stateless mode (no `Mcp-Session-Id`), one per request, answering one JSON body when the client
 *   accepts `application/json` at least as much as `text/event-stream`, an SSE stream otherwise. The SDK's own legacy
 *   fallback always streams; routing on `isLegacyRequest` in front of a strict handler is the composition the SDK
 *   documents for serving that era differently.
 *
 * Neither era keeps anything between requests, so any instance answers any request of a conversation.
 */
export class McpServing {
  private readonly catalog: McpCatalog;
  private readonly modern: McpHttpHandler;
  /** The session of a request in flight, found by the Web request the SDK hands back to the factory. */
  private readonly sessions = new WeakMap<Request, McpSession>();

  constructor(catalog: McpCatalog, log: Logger) {
    this.catalog = catalog;
    this.modern = createMcpHandler(({ requestInfo }) => this.serverOf(requestInfo), {
      legacy: 'reject',
      // Rejections (a bad envelope, a header mismatch) are the client's and are answered; log them for operators only.
      onerror: (error) => log.debug({ err: error }, 'mcp request refused by the protocol layer'),
    });
  }

  /** The answer to one JSON-RPC message (or batch) whose body `parsedBody` came with `request`. */
  async answer(request: Request, parsedBody: unknown, session: McpSession, prefersJson: boolean): Promise<Response> {
    this.sessions.set(request, session);
    const authInfo = session.caller.authInfo ?? undefined;
    if (!(await isLegacyRequest(request, parsedBody))) return this.modern.fetch(request, { parsedBody, ...(authInfo === undefined ? {} : { authInfo }) });
    const server = this.catalog.serverFor(session);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: prefersJson });
    await server.connect(transport);
    // A client that goes away before its answer: abort what still runs for it.
    request.signal.addEventListener('abort', () => void server.close(), { once: true });
    return transport.handleRequest(request, { parsedBody, ...(authInfo === undefined ? {} : { authInfo }) });
  }

  private serverOf(request: Request | undefined): Server {
    const session = request === undefined ? undefined : this.sessions.get(request);
    // The handler only ever calls the factory with the request this class handed it.
    if (session === undefined) throw new Error('an MCP request reached the server factory without its session');
    return this.catalog.serverFor(session);
  }
}
