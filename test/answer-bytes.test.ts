import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import Koa from 'koa';
import { ANSWER_BYTES_THRESHOLD, largeAnswersAsBytes } from '../src/http/answer-bytes.js';
import { rawRequest, type RawResponse } from './support/raw-http.js';

/**
 * Large answers leave as bytes (src/http/answer-bytes.ts): a client receives exactly what Koa would have sent for the
 * same body (status, Content-Type, Content-Length, bytes), while the server hands the socket a Buffer for an answer of
 * ANSWER_BYTES_THRESHOLD or more and text for a smaller one.
 */

const large = 'x'.repeat(ANSWER_BYTES_THRESHOLD);
// Multi-byte characters: the byte count is not the string's length.
const largeAccented = 'é🎓'.repeat(ANSWER_BYTES_THRESHOLD / 2);
const lectures = Array.from({ length: 400 }, (_, index) => ({ title: `Lecture ${index} — intro`, state: 'unread', isLocked: false, unlockAt: null, duration: 300 }));

const routes: Record<string, (ctx: Koa.Context) => void> = {
  '/large-text': (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = large;
  },
  '/large-accented': (ctx) => {
    ctx.body = largeAccented;
  },
  '/large-json-text': (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = JSON.stringify({ data: { lectures } });
  },
  '/large-json': (ctx) => {
    ctx.body = { lectures };
  },
  '/large-json-array': (ctx) => {
    ctx.status = 201;
    ctx.body = lectures;
  },
  '/small-json': (ctx) => {
    ctx.body = { sub: '42', roles: ['member'] };
  },
  '/small-text': (ctx) => {
    ctx.body = 'hello';
  },
  '/stream': (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = Readable.from([large, large]);
  },
  '/no-content': (ctx) => {
    ctx.status = 204;
  },
};

interface Served {
  server: http.Server;
  url: string;
  /** What each path's answer was handed to Koa as: bytes, text, or something else (a stream, nothing). */
  handedAs: Map<string, 'bytes' | 'text' | 'other'>;
}

async function serve(withMiddleware: boolean): Promise<Served> {
  const handedAs = new Map<string, 'bytes' | 'text' | 'other'>();
  const app = new Koa();
  app.use(async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    handedAs.set(ctx.path, Buffer.isBuffer(body) ? 'bytes' : typeof body === 'string' ? 'text' : 'other');
  });
  if (withMiddleware) app.use(largeAnswersAsBytes());
  app.use((ctx) => routes[ctx.path]?.(ctx));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, handedAs };
}

const asSent = (answer: RawResponse) => ({
  status: answer.status,
  type: answer.headers['content-type'],
  length: answer.headers['content-length'],
  chunked: answer.headers['transfer-encoding'],
  body: answer.body.toString('utf8'),
});

describe('large answers leave as bytes', () => {
  let withBytes: Served;
  let plainKoa: Served;

  before(async () => {
    withBytes = await serve(true);
    plainKoa = await serve(false);
  });
  after(() => {
    withBytes.server.close();
    plainKoa.server.close();
  });

  for (const path of Object.keys(routes)) {
    it(`${path}: the client receives what Koa sends for the same body`, async () => {
      const ours = await rawRequest(`${withBytes.url}${path}`);
      const koas = await rawRequest(`${plainKoa.url}${path}`);
      expect(asSent(ours)).to.deep.equal(asSent(koas));
      if (ours.headers['content-length'] !== undefined) expect(Number(ours.headers['content-length'])).to.equal(ours.body.length);
    });
  }

  it('hands Koa a Buffer for every text or JSON answer of the threshold or more, and text for smaller ones', async () => {
    for (const path of Object.keys(routes)) await rawRequest(`${withBytes.url}${path}`);
    expect(Object.fromEntries(withBytes.handedAs)).to.deep.equal({
      '/large-text': 'bytes',
      '/large-accented': 'bytes',
      '/large-json-text': 'bytes',
      '/large-json': 'bytes',
      '/large-json-array': 'bytes',
      '/small-json': 'text',
      '/small-text': 'text',
      '/stream': 'other',
      '/no-content': 'other',
    });
  });

  it('encodes multi-byte text as UTF-8, with the byte count as its Content-Length', async () => {
    const answer = await rawRequest(`${withBytes.url}/large-accented`);
    expect(answer.body.toString('utf8')).to.equal(largeAccented);
    expect(Number(answer.headers['content-length'])).to.equal(Buffer.byteLength(largeAccented)).and.to.be.greaterThan(largeAccented.length);
  });

  it('answers HEAD for a JSON answer with the Content-Length of its GET and no body', async () => {
    const get = await rawRequest(`${withBytes.url}/large-json`);
    const head = await rawRequest(`${withBytes.url}/large-json`, {}, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.body.length).to.equal(0);
    expect(head.headers['content-type']).to.equal(get.headers['content-type']);
    expect(head.headers['content-length']).to.equal(String(get.body.length));
  });
});
