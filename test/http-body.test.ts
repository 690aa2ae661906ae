import { expect } from 'chai';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import Koa from 'koa';
import { acceptBody, bodyText, declaredBody, parseFormFields, parseJson, parseSingleValuedForm, readBodyBytes, type BytesOutcome, type ReadOptions } from '../src/http/body.js';
import { AppError } from '../src/shared/errors.js';

/** A server whose every request is read by readBodyBytes with `options`; the outcome comes back as JSON. */
async function readingServer(options: ReadOptions): Promise<{ server: Server; port: number }> {
  const server = createServer((req: IncomingMessage, res) => {
    readBodyBytes(req, options).then(
      (outcome: BytesOutcome) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(outcome.kind === 'bytes' ? { kind: 'bytes', text: bodyText(outcome.bytes) } : outcome));
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A raw request, so the test chooses Content-Length, Content-Encoding and chunking itself. */
function send(port: number, headers: Record<string, string>, chunks: Array<string | Buffer>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('the request body layer (src/http/body.ts)', () => {
  describe('readBodyBytes', () => {
    let plain: { server: Server; port: number };
    let decoding: { server: Server; port: number };
    before(async () => {
      plain = await readingServer({ limit: 40 });
      decoding = await readingServer({ limit: 40, decodeContentEncoding: true });
    });
    after(() => {
      plain.server.close();
      decoding.server.close();
    });

    it('reads a body up to its limit', async () => {
      const answer = await send(plain.port, { 'content-type': 'text/plain' }, ['x'.repeat(40)]);
      expect(JSON.parse(answer.body)).to.deep.equal({ kind: 'bytes', text: 'x'.repeat(40) });
    });

    it('answers too_large for a declared length over the limit, before reading', async () => {
      const answer = await send(plain.port, { 'content-length': '41' }, ['x'.repeat(41)]);
      expect(JSON.parse(answer.body)).to.deep.equal({ kind: 'too_large', limit: 40 });
    });

    it('answers too_large for a chunked body running past the limit, and the connection still answers', async () => {
      const answer = await send(plain.port, { 'transfer-encoding': 'chunked' }, ['0123456789', 'abcdefghij0123456789abcdefghij', 'x'.repeat(100_000)]);
      expect(answer.status).to.equal(200);
      expect(JSON.parse(answer.body)).to.deep.equal({ kind: 'too_large', limit: 40 });
    });

    it('takes compressed bytes as sent unless asked to decode them', async () => {
      const zipped = gzipSync('{"a":1}');
      const raw = JSON.parse((await send(plain.port, { 'content-encoding': 'gzip' }, [zipped])).body) as { kind: string; text: string };
      expect(raw.kind).to.equal('bytes');
      expect(raw.text).to.not.equal('{"a":1}');
      expect(JSON.parse((await send(decoding.port, { 'content-encoding': 'gzip' }, [zipped])).body)).to.deep.equal({ kind: 'bytes', text: '{"a":1}' });
    });

    it('applies the limit to the decompressed bytes', async () => {
      const answer = await send(decoding.port, { 'content-encoding': 'gzip' }, [gzipSync('x'.repeat(1000))]);
      expect(JSON.parse(answer.body)).to.deep.equal({ kind: 'too_large', limit: 40 });
    });

    it('answers unsupported_encoding and undecodable for encodings it cannot decode', async () => {
      expect(JSON.parse((await send(decoding.port, { 'content-encoding': 'compress' }, ['abc'])).body)).to.deep.equal({ kind: 'unsupported_encoding', encoding: 'compress' });
      const broken = JSON.parse((await send(decoding.port, { 'content-encoding': 'gzip' }, ['not gzip at all'])).body) as { kind: string; message: string };
      expect(broken.kind).to.equal('undecodable');
      expect(broken.message).to.be.a('string').and.not.equal('');
    });
  });

  describe('bodyText', () => {
    it('drops a leading byte order mark', () => {
      expect(bodyText(Buffer.from('\ufeff{"a":1}', 'utf8'))).to.equal('{"a":1}');
    });
  });

  describe('parseJson', () => {
    it('parses any JSON value by default', () => {
      expect(parseJson('5')).to.deep.equal({ kind: 'json', value: 5 });
      expect(parseJson('{').kind).to.equal('malformed');
    });

    it('takes only an object or an array when asked, an empty text being an empty object', () => {
      expect(parseJson('"x"', { objectOrArray: true })).to.deep.equal({ kind: 'malformed', message: 'invalid JSON, only supports object and array' });
      expect(parseJson('', { objectOrArray: true })).to.deep.equal({ kind: 'json', value: {} });
      expect(parseJson(' \n[1]', { objectOrArray: true })).to.deep.equal({ kind: 'json', value: [1] });
    });

    it('refuses a __proto__ key at any depth when asked, escaped or not', () => {
      expect(parseJson('{"a":{"__proto__":{"x":1}}}', { refuseProtoKeys: true })).to.deep.equal({ kind: 'malformed', message: 'Object contains forbidden prototype property' });
      expect(parseJson('{"\\u005f_proto__":{}}', { refuseProtoKeys: true }).kind).to.equal('malformed');
      expect(parseJson('{"proto":{}}', { refuseProtoKeys: true }).kind).to.equal('json');
      expect(parseJson('{"__proto__":{}}').kind).to.equal('json');
    });
  });

  describe('forms', () => {
    it('reads each parameter once, empty values as omitted', () => {
      const outcome = parseSingleValuedForm('a=1&b=&c=x+y%21');
      expect(outcome.kind).to.equal('form');
      if (outcome.kind === 'form') expect([...outcome.params]).to.deep.equal([['a', '1'], ['c', 'x y!']]);
    });

    it('names a parameter given twice; an empty value before a given one counts as omitted', () => {
      expect(parseSingleValuedForm('a=1&b=2&a=')).to.deep.equal({ kind: 'repeated', name: 'a' });
      expect(parseSingleValuedForm('a=&a=1')).to.deep.equal({ kind: 'form', params: new Map([['a', '1']]) });
    });

    it('keeps repeated fields where they are allowed', () => {
      expect(parseFormFields('scope=a&scope=b').getAll('scope')).to.deep.equal(['a', 'b']);
    });
  });

  describe('acceptBody', () => {
    let server: Server;
    let port: number;
    before(async () => {
      const app = new Koa();
      app.use(async (ctx, next) => {
        try {
          await next();
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          ctx.status = error.status;
          ctx.body = { error: error.code, error_description: error.message };
        }
      });
      app.use(acceptBody({ json: 32, form: 32 }));
      app.use((ctx) => {
        ctx.body = declaredBody(ctx);
      });
      server = app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(() => server.close());

    it('reads JSON and forms, and leaves other media types unread', async () => {
      expect(JSON.parse((await send(port, { 'content-type': 'application/json; charset=utf-8' }, ['{"a":1}'])).body)).to.deep.equal({ kind: 'json', value: { a: 1 } });
      expect(JSON.parse((await send(port, { 'content-type': 'application/x-www-form-urlencoded' }, ['a=1&a=2'])).body)).to.deep.equal({ kind: 'form', text: 'a=1&a=2' });
      expect(JSON.parse((await send(port, { 'content-type': 'text/plain' }, ['{"a":1}'])).body)).to.deep.equal({ kind: 'none' });
    });

    it('answers a body it cannot read with the JSON error of the route', async () => {
      const tooLarge = await send(port, { 'content-type': 'application/x-www-form-urlencoded' }, ['a='.padEnd(40, 'x')]);
      expect(tooLarge.status).to.equal(413);
      expect(JSON.parse(tooLarge.body)).to.deep.equal({ error: 'request_too_large', error_description: 'request entity too large' });
      const malformed = await send(port, { 'content-type': 'application/json' }, ['{"a":']);
      expect(malformed.status).to.equal(400);
      expect((JSON.parse(malformed.body) as { error: string }).error).to.equal('invalid_request');
      const encoding = await send(port, { 'content-type': 'application/json', 'content-encoding': 'compress' }, ['{}']);
      expect(encoding.status).to.equal(415);
      expect(JSON.parse(encoding.body)).to.deep.equal({ error: 'invalid_request', error_description: 'Unsupported Content-Encoding: compress' });
    });
  });
});
