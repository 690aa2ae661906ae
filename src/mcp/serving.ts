import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
  type Server,
} from '@modelcontextprotocol/server';
import type { Logger } from '../shared/logger.js';
import { MODERN_REVISION } from './revisions.js';
import type { McpCatalog } from './server.js';
import type { McpSession } from './session.js';

/** The id of a lone JSON-RPC request (not a batch, notification or response): what an error about it must echo. */
function loneRequestId(message: unknown): string | number | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const { id, method } = message as { id?: unknown; method?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : null;
}

/**
 * The 2025-era answer to an MCP-Protocol-Version header naming a revision this endpoint does not serve. The
 * transport's own answer has no id and names the 2025 revisions only; this one echoes the request's id and names
 * every revision a client may use here.
 */
function unsupportedRevision(requested: string, id: string | number | null): Response {
  const message = `Bad Request: Unsupported protocol version: ${requested} (supported versions: ${MODERN_REVISION} with the per-request _meta envelope; ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} after initialize)`;
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message, data: { supported: [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS], requested } }, id }, { status: 400 });
}

/** A JSON error the 2025 transport answered on its own (it never sets the id), with the request's id put in. */
async function withRequestId(response: Response, id: string | number | null): Promise<Response> {
  if (id === null || response.status < 400 || !response.headers.get('content-type')?.startsWith('application/json')) return response;
  const body = (await response.json()) as Record<string, unknown>;
  return Response.json({ ...body, id: body.id ?? id }, { status: response.status, headers: response.headers });
}

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
    const options = { parsedBody, ...(authInfo === undefined ? {} : { authInfo }) };
    const revision = request.headers.get('mcp-protocol-version')?.trim();
    // A posted JSON-RPC response or a batch carries no envelope, so its shape alone makes it 2025-era; under a
    // 2026-07-28 header it goes to the modern handler, which refuses it in that revision's terms (it has neither)
    // instead of the 2025 transport calling 2026-07-28 an unsupported revision.
    if (!(await isLegacyRequest(request, parsedBody)) || (revision !== undefined && revision >= MODERN_REVISION)) return this.modern.fetch(request, options);
    const id = loneRequestId(parsedBody);
    if (revision !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(revision) && !isInitializeRequest(parsedBody)) return unsupportedRevision(revision, id);
    const server = this.catalog.serverFor(session);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: prefersJson });
    await server.connect(transport);
    // A client that goes away before its answer: abort what still runs for it.
    request.signal.addEventListener('abort', () => void server.close(), { once: true });
    return withRequestId(await transport.handleRequest(request, options), id);
  }

  private serverOf(request: Request | undefined): Server {
    const session = request === undefined ? undefined : this.sessions.get(request);
    // The handler only ever calls the factory with the request this class handed it.
    if (session === undefined) throw new Error('an MCP request reached the server factory without its session');
    return this.catalog.serverFor(session);
  }
}
