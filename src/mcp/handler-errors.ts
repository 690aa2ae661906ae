import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { classifyFailure, isRetryable } from '../shared/failure.js';
import type { McpSession } from './session.js';

/**
 * The JSON-RPC error a failure inside a resource, prompt or completion handler becomes (tools answer tool errors
 * instead, src/mcp/tool.ts). A protocol error is answered as it is; a store that cannot answer (unreachable, or a
 * transaction that lost a conflict) is -32603 with `data.error` `temporarily_unavailable`, so a client retries; a
 * client's mistake the domain found is -32602; anything else is masked as -32603 and logged. Never the driver's text.
 * The kinds come from the one failure classifier (src/shared/failure.ts).
 */
export function protocolErrorOf(error: unknown, session: McpSession): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const failure = classifyFailure(error);
  if (isRetryable(failure)) return new ProtocolError(ProtocolErrorCode.InternalError, 'The school is temporarily unavailable; retry shortly', { error: 'temporarily_unavailable' });
  if (failure.kind === 'client') return new ProtocolError(ProtocolErrorCode.InvalidParams, failure.error.message, { error: failure.error.code });
  session.log.error({ err: error }, 'mcp request failed');
  return new ProtocolError(ProtocolErrorCode.InternalError, 'The request failed unexpectedly; retry later', { error: 'server_error' });
}

/** A request handler whose failures become the errors above. */
export function guarded(session: McpSession) {
  return <Request, Result>(handler: (request: Request) => Promise<Result>) =>
    async (request: Request): Promise<Result> => {
      try {
        return await handler(request);
      } catch (error) {
        throw protocolErrorOf(error, session);
      }
    };
}
