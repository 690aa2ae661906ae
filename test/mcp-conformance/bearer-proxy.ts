import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** `http://localhost:PROXYPORT`, to give the conformance suite instead of the school's origin. */
  origin: string;
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of the school that adds `Authorization: Bearer <token>` to every request that has none:
 * the conformance suite's server scenarios have no header option, so this is how they run as a signed-in member.
 *
 * The school finds its site from the Host header (and /mcp checks Origin), so the proxy's own `localhost:PROXYPORT`
 * is rewritten to the school's `localhost:PORT` in Host and Origin. Any other Host or Origin passes unchanged, so the
 * suite's DNS-rebinding checks (a foreign Host or Origin) still reach the school as the suite sent them. Bodies are
 * streamed both ways, so SSE answers arrive as the school writes them.
 */
export async function startBearerProxy(target: { origin: string; port: number }, token: string): Promise<BearerProxy> {
  let ownHost = '';
  const targetHost = new URL(target.origin).host;
  const server = http.createServer((request, response) => {
    const headers = { ...request.headers };
    if (headers.host === ownHost) headers.host = targetHost;
    if (headers.origin === `http://${ownHost}`) headers.origin = target.origin;
    headers.authorization ??= `Bearer ${token}`;
    const upstream = http.request({ host: '127.0.0.1', port: target.port, method: request.method, path: request.url, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
      answer.pipe(response);
    });
    upstream.on('error', (error) => {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
      response.end(`bearer proxy: ${error.message}`);
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  ownHost = `localhost:${port}`;
  return {
    origin: `http://${ownHost}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
