import type { IncomingMessage } from 'node:http';
import { mediaTypeOf, parseJson, readBodyBytes } from '../http/body.js';

/** Largest JSON-RPC body /mcp reads: tool calls are small; the app's other JSON bodies have the same limit. */
export const MCP_BODY_LIMIT = 64 * 1024;

export type BodyReading = { kind: 'json'; value: unknown } | { kind: 'not-json' } | { kind: 'invalid-json' } | { kind: 'too-large' };

function isJsonContentType(contentType: string | undefined): boolean {
  const essence = mediaTypeOf(contentType);
  return essence === 'application/json' || (essence.startsWith('application/') && essence.endsWith('+json'));
}

/**
 * Reads a POST body once (no route-level reader runs before /mcp) and parses it when it is JSON. A body of another
 * media type is left for the transport to refuse (415). The bytes are taken as sent, Content-Encoding included.
 */
export async function readMcpBody(req: IncomingMessage, limit = MCP_BODY_LIMIT): Promise<BodyReading> {
  const read = await readBodyBytes(req, { limit });
  if (read.kind !== 'bytes') return { kind: 'too-large' };
  if (!isJsonContentType(req.headers['content-type'])) return { kind: 'not-json' };
  const parsed = parseJson(read.bytes.toString('utf8'));
  return parsed.kind === 'json' ? parsed : { kind: 'invalid-json' };
}
