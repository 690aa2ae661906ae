import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Floor } from './answer.js';
import { refreshFloor } from './refresh.js';
import { forgetSite } from './site.js';
import type { StatementBook } from './statements.js';
import type { RawStore } from './store.js';
import { syllabusFloor } from './syllabus.js';
import { userinfoFloor } from './userinfo.js';

/** Every floor, by method and path. */
export const FLOORS: Record<string, Floor> = {
  'GET /floor/userinfo': userinfoFloor,
  'POST /floor/token': refreshFloor,
  'POST /floor/syllabus': syllabusFloor,
};

/** Where the bench hands the floors the product's statements (test/bench/floors/statements.ts) before it asks them anything. */
export const STATEMENTS_PATH = '/floor/statements';

function bodyOf(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

function send(response: http.ServerResponse, status: number, json: string): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(json) });
  response.end(json);
}

/**
 * The floors' HTTP server: plain node:http, dispatched on method and path (no router, no middleware, no logging).
 * Until it has the product's statements every floor answers 503.
 */
export async function startFloorServer(store: RawStore, host = '127.0.0.1'): Promise<{ url: string; close(): Promise<void> }> {
  let book: StatementBook | null = null;
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const floor = FLOORS[`${request.method ?? 'GET'} ${path}`];
    bodyOf(request)
      .then(async (body) => {
        if (request.method === 'POST' && path === STATEMENTS_PATH) {
          book = JSON.parse(body) as StatementBook;
          forgetSite();
          return send(response, 200, '{}');
        }
        if (!floor) return send(response, 404, JSON.stringify({ error: 'not_found' }));
        if (!book) return send(response, 503, JSON.stringify({ error: 'the floors have not been given the product statements yet' }));
        const answer = await floor({ headers: request.headers, body, store, book });
        send(response, answer.status, answer.json);
      })
      .catch((error: unknown) => send(response, 500, JSON.stringify({ error: error instanceof Error ? error.message : String(error) })));
  });
  server.listen(0, host);
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
