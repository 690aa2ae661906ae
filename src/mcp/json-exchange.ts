import type { IncomingMessage } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type JSONRPCRequest, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/**
 * The common case of /mcp, answered without the HTTP transport's Web `Request`/`Response` round trip: one JSON-RPC
 * request (not `initialize`) in a JSON body, from a client that gets a JSON answer, that the Streamable HTTP transport
 * would accept as it is. `jsonExchangeRequest` only says yes when every check the transport makes on such a request
 * passes (both media types in Accept, a JSON Content-Type, the rebinding checks, a supported protocol version, a valid
 * JSON-RPC request); anything else (initialize, batches, notifications, SSE answers, every refusal) goes to the SDK's
 * transport, which gives its own answer. The answer here is what that transport would write: the JSON-RPC response as
 * the body of a 200 `application/json`.
 */

/** The checks of the rebinding protection: the Host the site's (unless behind a trusted proxy), any Origin the site's. */
export interface RebindingRules {
  allowedOrigins: readonly string[];
  allowedHosts?: readonly string[];
}

function essence(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** The request when the exchange may answer it; null when the SDK's transport must. */
export function jsonExchangeRequest(req: IncomingMessage, parsed: unknown, answersWithJson: boolean, rules: RebindingRules): JSONRPCRequest | null {
  if (!answersWithJson || Array.isArray(parsed)) return null;
  const { headers } = req;
  const accept = headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return null;
  if (essence(headers['content-type']) !== 'application/json') return null;
  if (rules.allowedHosts && !rules.allowedHosts.includes(headers.host ?? '')) return null;
  if (headers.origin !== undefined && !rules.allowedOrigins.includes(headers.origin)) return null;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return null;
  if (!isJSONRPCRequest(parsed) || parsed.method === 'initialize') return null;
  return parsed;
}

/**
 * An SDK transport for one request and its one response: the server's answer to the request resolves `answer`; closing
 * it first (the client went away) resolves it with null. Notifications the server might send meanwhile have no stream
 * to go to and are dropped, as with the HTTP transport's JSON answers.
 */
export class JsonExchange implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly answer: Promise<JSONRPCMessage | null>;
  private settle: (message: JSONRPCMessage | null) => void = () => undefined;

  constructor(private readonly request: JSONRPCRequest) {
    this.answer = new Promise((resolve) => (this.settle = resolve));
  }

  async start(): Promise<void> {}

  /** Hands the request to the connected server. */
  deliver(extra: MessageExtraInfo): void {
    this.onmessage?.(this.request, extra);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id === this.request.id) this.settle(message);
  }

  async close(): Promise<void> {
    this.settle(null);
    this.onclose?.();
  }
}
