import { ProtocolError, ProtocolErrorCode, Server, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server';

/**
 * The params at fault when the SDK refused a request's params against the method's schema (it does so before any
 * handler runs): its message is zod's issue list as JSON, after "Invalid tools/call request: " for tools/call.
 */
function schemaIssuesOf(error: unknown): string[] | null {
  if (!(error instanceof Error) || (error instanceof ProtocolError && error.code !== ProtocolErrorCode.InvalidParams)) return null;
  const start = error.message.indexOf('[');
  let issues: unknown;
  try {
    issues = JSON.parse(error.message.slice(start));
  } catch {
    return null;
  }
  if (start < 0 || !Array.isArray(issues) || issues.length === 0) return null;
  const described: string[] = [];
  for (const issue of issues as unknown[]) {
    const { path, message } = (typeof issue === 'object' && issue !== null ? issue : {}) as { path?: unknown; message?: unknown };
    if (!Array.isArray(path) || typeof message !== 'string') return null;
    described.push(`${path.map(String).join('.') || 'params'}: ${message}`);
  }
  return described;
}

/**
 * The SDK's server with one change: params that do not fit the method's schema are the client's mistake, answered
 * -32602 with the params at fault in words. The SDK answers them -32603 (-32602 for tools/call) with zod's issue list
 * as the message.
 */
export class SchoolServer extends Server {
  protected override _wrapHandler(method: string, handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx);
      } catch (error) {
        const issues = schemaIssuesOf(error);
        if (issues === null) throw error;
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for ${method}: ${issues.slice(0, 5).join('; ')}${issues.length > 5 ? ` (and ${issues.length - 5} more)` : ''}`);
      }
    };
  }
}
