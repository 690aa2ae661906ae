import type { IncomingMessage } from 'node:http';

/** Largest JSON-RPC body /mcp reads: tool calls are small; the app's other JSON bodies have the same limit. */
export const MCP_BODY_LIMIT = 64 * 1024;

export type BodyReading = { kind: 'json'; value: unknown } | { kind: 'not-json' } | { kind: 'invalid-json' } | { kind: 'too-large' };

function isJsonContentType(contentType: string | undefined): boolean {
  const essence = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === 'application/json' || (essence.startsWith('application/') && essence.endsWith('+json'));
}

/**
 * Reads a POST body once (the app-wide body parser skips /mcp, like the member GraphQL path) and parses it when it
 * is JSON. A body of another media type is left for the transport to refuse (415).
 */
export async function readMcpBody(req: IncomingMessage, limit = MCP_BODY_LIMIT): Promise<BodyReading> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return { kind: 'too-large' };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) return { kind: 'too-large' };
    chunks.push(buffer);
  }
  if (!isJsonContentType(req.headers['content-type'])) return { kind: 'not-json' };
  try {
    return { kind: 'json', value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { kind: 'invalid-json' };
  }
}
