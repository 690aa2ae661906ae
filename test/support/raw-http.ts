import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A GET over node:http: the path goes on the wire exactly as written (fetch would normalize `..` away), the Host header
 * is sent as given (fetch sets its own), and a conditional request stays conditional (fetch adds Cache-Control:
 * no-cache, which forbids a 304).
 */
export function rawGet(port: number, host: string, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return answerOf(http.request({ host: '127.0.0.1', port, path, headers: { Host: host, ...headers } }));
}

/** A request to a URL whose answer is read as sent (fetch would decode a compressed one), with exactly the headers given. */
export function rawRequest(url: string, headers: Record<string, string> = {}, options: { method?: string; body?: string } = {}): Promise<RawResponse> {
  return answerOf(http.request(url, { method: options.method ?? 'GET', headers }), options.body);
}

/** Sends the request (with `body`, if any) and reads its answer whole, bytes as received. */
function answerOf(request: http.ClientRequest, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    request.on('response', (response: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}
