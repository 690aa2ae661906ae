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
  const bytes = await readUpTo(req, limit);
  if (bytes === null) return { kind: 'too-large' };
  if (!isJsonContentType(req.headers['content-type'])) return { kind: 'not-json' };
  try {
    return { kind: 'json', value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    return { kind: 'invalid-json' };
  }
}

/**
 * The body's bytes, or null as soon as it runs past `limit` (a body sent without Content-Length). Reading then stops
 * and the request is paused, not destroyed: destroying it mid-body (what leaving a `for await` loop early does) makes
 * Koa replace the 413 with its own bare 500.
 */
function readUpTo(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  // A stream already read to its end emits nothing more (nothing reads /mcp bodies before this, but never wait forever).
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
    };
    function onData(chunk: Buffer): void {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      req.pause();
      resolve(null);
    }
    function onEnd(): void {
      stop();
      resolve(Buffer.concat(chunks));
    }
    // A client gone before the end of its body: nothing to answer (settling twice is a no-op).
    function onClose(): void {
      stop();
      reject(new Error('the client closed the connection before the end of the request body'));
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.once('error', reject);
  });
}
