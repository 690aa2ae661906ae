import http from 'node:http';
import { expect } from 'chai';
import { CHUNK_BYTES } from '../src/storage/uploads.js';
import { AdminApi, issueToken, type Schemas } from './support/admin.js';
import { describeEachDatabase } from './support/databases.js';
import { startTestServer, type TestServer } from './support/server.js';

type StorageUpload = Schemas['StorageUpload'];

const SANDBOX = "sandbox; default-src 'none'";
/** Every byte value, so that nothing on the way treats the object as text. */
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, index) => index));

interface Answer {
  status: number;
  headers: Headers;
}

/**
 * A request on a plain socket, as a browser's cache or a media player sends it: fetch() adds `Cache-Control: no-cache`
 * to conditional requests (which rules out a 304) and handles Range requests its own way.
 */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ response: Answer; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (typeof value === 'string') answerHeaders.set(name, value);
        }
        resolve({ response: { status: response.statusCode ?? 0, headers: answerHeaders }, bytes: Buffer.concat(chunks) });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

/**
 * Uploaded objects at their public URLs (src/uploads/serve.ts, docs/admin-content.md "Serving the objects"): uploaded
 * through the admin API, fetched like a browser would, on both stores.
 */
describeEachDatabase('storage: uploaded objects served at their URL', (scratch) => {
  let server: TestServer;
  let api: AdminApi;
  let apiB: AdminApi;

  before(async () => {
    server = await startTestServer(scratch());
    api = await AdminApi.connect(server.siteA.origin, (await issueToken(scratch().db, server.siteA, { scopes: ['storage:write'] })).token);
    apiB = await AdminApi.connect(server.siteB.origin, (await issueToken(scratch().db, server.siteB, { scopes: ['storage:write'] })).token);
  });
  after(() => server.stop());

  async function createSlot(filename: string, contentType: string, sizeBytes: number, client = api): Promise<StorageUpload> {
    const answer = await client.call<StorageUpload>('createStorageUpload', { body: { filename, contentType, sizeBytes } });
    expect(answer.status, answer.text).to.equal(201);
    return answer.body;
  }

  /** A slot that has its bytes, uploaded as a client would (the body as raw bytes). */
  async function upload(filename: string, contentType: string, bytes: Buffer, client = api): Promise<StorageUpload> {
    const slot = await createSlot(filename, contentType, bytes.length, client);
    const answer = await fetch(slot.uploadUrl, { method: 'PUT', headers: { authorization: `Bearer ${client.token ?? ''}`, 'content-type': contentType }, body: bytes });
    expect(answer.status, await answer.clone().text()).to.equal(200);
    return (await answer.json()) as StorageUpload;
  }

  function expectPassiveHeaders(response: Answer): void {
    expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(response.headers.get('content-security-policy')).to.equal(SANDBOX);
  }

  it('gives every slot its public URL on the site\'s origin: /uploads/<id>/<the key\'s file name>', async () => {
    const slot = await createSlot('Cover.PNG', 'image/png', 10);
    const fileName = slot.objectKey.split('/').at(-1);
    expect(slot.url).to.equal(`${server.siteA.origin}/uploads/${slot.id}/${fileName}`);
    expect(fileName).to.match(/^[0-9a-f]{32}\.png$/);
  });

  it('serves the bytes with their media type, length, a strong ETag, caching, nosniff and the sandbox', async () => {
    const stored = await upload('Team Photo.png', 'image/png', ALL_BYTES);
    const { response, bytes } = await get(stored.url);
    expect(response.status).to.equal(200);
    expect(bytes.equals(ALL_BYTES)).to.equal(true);
    expect(response.headers.get('content-type')).to.equal('image/png');
    expect(response.headers.get('content-length')).to.equal(String(ALL_BYTES.length));
    expect(response.headers.get('etag')).to.equal(`"upload-${stored.id}-v2"`);
    expect(response.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect(response.headers.get('content-disposition')).to.equal('inline; filename="Team Photo.png"');
    expect(response.headers.get('accept-ranges')).to.equal('bytes');
    expect(response.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
    expect(Date.parse(response.headers.get('last-modified') ?? '')).to.equal(Math.floor(Date.parse(stored.uploadedAt ?? '') / 1000) * 1000);
    expectPassiveHeaders(response);
    // No token needed, and none is looked at.
    expect((await get(stored.url, { authorization: 'Bearer nonsense' })).response.status).to.equal(200);
  });

  it('answers a matching If-None-Match with 304 and HEAD with the headers alone', async () => {
    const stored = await upload('notes.txt', 'text/plain', Buffer.from('Grüße ✓\n'));
    const first = await get(stored.url);
    const etag = first.response.headers.get('etag') ?? '';
    const revalidated = await get(stored.url, { 'if-none-match': etag });
    expect(revalidated.response.status).to.equal(304);
    expect(revalidated.bytes.length).to.equal(0);
    expect(revalidated.response.headers.get('etag')).to.equal(etag);
    expect(revalidated.response.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect((await get(stored.url, { 'if-none-match': '"upload-0-v1", ' + etag })).response.status).to.equal(304);
    expect((await get(stored.url, { 'if-none-match': '"something-else"' })).response.status).to.equal(200);

    const head = await get(stored.url, {}, 'HEAD');
    expect(head.response.status).to.equal(200);
    expect(head.bytes.length).to.equal(0);
    for (const name of ['content-type', 'content-length', 'etag', 'cache-control', 'x-content-type-options', 'content-security-policy', 'content-disposition']) {
      expect(head.response.headers.get(name), name).to.equal(first.response.headers.get(name));
    }
    expect(first.response.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(first.bytes.toString('utf8')).to.equal('Grüße ✓\n');
    expect((await get(stored.url, { 'if-none-match': etag }, 'HEAD')).response.status).to.equal(304);
  });

  it('serves PDF and ZIP files as downloads named as uploaded, with the object\'s extension', async () => {
    const pdf = await upload('invoice.pdf.exe', 'application/pdf', Buffer.from('%PDF-1.4 test'));
    const answer = await get(pdf.url);
    expect(answer.response.headers.get('content-type')).to.equal('application/pdf');
    expect(answer.response.headers.get('content-disposition')).to.equal('attachment; filename="invoice.pdf.exe.pdf"');
    expectPassiveHeaders(answer.response);
    const zip = await upload('練習.zip', 'application/zip', Buffer.from('PK\x03\x04'));
    const zipped = await get(zip.url);
    expect(zipped.response.headers.get('content-type')).to.equal('application/zip');
    expect(zipped.response.headers.get('content-disposition')).to.equal(`attachment; filename="??.zip"; filename*=UTF-8''%E7%B7%B4%E7%BF%92.zip`);
  });

  it('never serves hostile content as active: HTML and SVG bytes keep their harmless type, hand-written hostile types are downloads', async () => {
    const page = '<!doctype html><html><body><script>alert(document.cookie)</script></body></html>';
    const asText = await get((await upload('page.html', 'text/plain', Buffer.from(page))).url);
    expect(asText.response.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(asText.bytes.toString('utf8')).to.equal(page);
    expectPassiveHeaders(asText.response);
    const drawing = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    const asImage = await get((await upload('drawing.svg', 'image/png', Buffer.from(drawing))).url);
    expect(asImage.response.headers.get('content-type')).to.equal('image/png');
    expectPassiveHeaders(asImage.response);

    // The allowlist refuses these media types, so only a row written by hand (or an older allowlist) can hold one.
    const db = scratch().db;
    for (const [storedType, extension] of [['text/html', 'html'], ['image/svg+xml', 'svg'], ['application/javascript', 'js'], ['application/xhtml+xml', 'xhtml'], ['text/xml', 'xml']] as const) {
      const fileName = `${'ab'.repeat(16)}.${extension}`;
      const now = new Date();
      const [id] = await db('storage_uploads').insert({
        site_id: server.siteA.id, object_key: `sites/${server.siteA.id}/uploads/${fileName}`, filename: `x\r\nSet-Cookie: a=1.${extension}`, content_type: storedType, size_bytes: drawing.length,
        state: 'uploaded', expires_at: now, uploaded_at: now, version: 2, created_at: now, updated_at: now,
      });
      await db('storage_upload_chunks').insert({ upload_id: Number(id), seq: 0, data: Buffer.from(drawing) });
      const answer = await get(`${server.siteA.origin}/uploads/${Number(id)}/${fileName}`);
      expect(answer.response.status, storedType).to.equal(200);
      expect(answer.response.headers.get('content-type'), storedType).to.equal('application/octet-stream');
      expect(answer.response.headers.get('content-disposition'), storedType).to.equal(`attachment; filename="xSet-Cookie: a=1.${extension}.bin"`);
      expect(answer.response.headers.get('set-cookie'), storedType).to.equal(null);
      expectPassiveHeaders(answer.response);
      expect(answer.bytes.toString('utf8')).to.equal(drawing);
    }
  });

  it('streams an object of many chunks whole, and one byte range at a time (206, 416, If-Range)', async () => {
    const size = 20 * CHUNK_BYTES + 123;
    const bytes = Buffer.alloc(size);
    for (let index = 0; index < size; index += 1) bytes[index] = (index * 7 + (index >> 9)) % 256;
    const stored = await upload('lecture.mp4', 'video/mp4', bytes);
    const whole = await get(stored.url);
    expect(whole.response.headers.get('content-length')).to.equal(String(size));
    expect(whole.bytes.equals(bytes)).to.equal(true);
    expect(whole.response.headers.get('content-disposition')).to.equal('inline; filename="lecture.mp4"');

    const ranges: Array<[string, number, number]> = [
      ['bytes=0-9', 0, 9],
      [`bytes=${CHUNK_BYTES - 5}-${17 * CHUNK_BYTES + 5}`, CHUNK_BYTES - 5, 17 * CHUNK_BYTES + 5],
      [`bytes=${size - 100}-`, size - 100, size - 1],
      ['bytes=-50', size - 50, size - 1],
      [`bytes=10-${size * 2}`, 10, size - 1],
    ];
    for (const [header, first, last] of ranges) {
      const part = await get(stored.url, { range: header });
      expect(part.response.status, header).to.equal(206);
      expect(part.response.headers.get('content-range'), header).to.equal(`bytes ${first}-${last}/${size}`);
      expect(part.response.headers.get('content-length'), header).to.equal(String(last - first + 1));
      expect(part.bytes.equals(bytes.subarray(first, last + 1)), header).to.equal(true);
    }
    const beyond = await get(stored.url, { range: `bytes=${size}-` });
    expect(beyond.response.status).to.equal(416);
    expect(beyond.response.headers.get('content-range')).to.equal(`bytes */${size}`);
    // Ranges it does not take (several, another unit, malformed) get the whole object.
    for (const header of ['bytes=0-1,5-6', 'items=0-1', 'bytes=9-2', 'bytes=abc']) {
      expect((await get(stored.url, { range: header })).response.status, header).to.equal(200);
    }
    const etag = whole.response.headers.get('etag') ?? '';
    expect((await get(stored.url, { range: 'bytes=0-9', 'if-range': etag })).response.status).to.equal(206);
    expect((await get(stored.url, { range: 'bytes=0-9', 'if-range': '"upload-1-v1"' })).response.status).to.equal(200);
    const head = await get(stored.url, { range: 'bytes=0-9' }, 'HEAD');
    expect(head.response.status).to.equal(200);
    expect(head.response.headers.get('content-length')).to.equal(String(size));
  });

  it('cuts the connection rather than end an answer short when chunks go missing while it streams', async () => {
    // As if the upload were deleted halfway through: 20 chunks announced, the first 17 still there.
    const db = scratch().db;
    const fileName = `${'cd'.repeat(16)}.txt`;
    const now = new Date();
    const [id] = await db('storage_uploads').insert({
      site_id: server.siteA.id, object_key: `sites/${server.siteA.id}/uploads/${fileName}`, filename: 'half.txt', content_type: 'text/plain', size_bytes: 20 * CHUNK_BYTES,
      state: 'uploaded', expires_at: now, uploaded_at: now, version: 2, created_at: now, updated_at: now,
    });
    for (let seq = 0; seq < 17; seq += 1) await db('storage_upload_chunks').insert({ upload_id: Number(id), seq, data: Buffer.alloc(CHUNK_BYTES, 'x') });
    const outcome = await get(`${server.siteA.origin}/uploads/${Number(id)}/${fileName}`).then(
      ({ response, bytes }) => `complete answer ${response.status} of ${bytes.length} bytes`,
      (error: Error) => `cut: ${error.message}`,
    );
    expect(outcome).to.match(/^cut: /);
    // The server goes on serving.
    expect((await get(`${server.siteA.origin}/healthz`)).response.status).to.equal(200);
  });

  it('answers 404 for a pending, expired or deleted slot, a wrong file name and another site\'s object', async () => {
    const db = scratch().db;
    const notFound = async (url: string, why: string): Promise<void> => {
      const answer = await get(url);
      expect(answer.response.status, why).to.equal(404);
      expect(answer.response.headers.get('etag'), why).to.equal(null);
      expect(answer.bytes.toString('utf8'), why).to.contain('not_found');
    };
    const pending = await createSlot('later.txt', 'text/plain', 3);
    await notFound(pending.url, 'pending');
    const expired = await createSlot('late.txt', 'text/plain', 3);
    await db('storage_uploads').where({ id: expired.id }).update({ expires_at: new Date(Date.now() - 1000) });
    await notFound(expired.url, 'expired');

    const deleted = await upload('gone.txt', 'text/plain', Buffer.from('bye'));
    expect((await get(deleted.url)).response.status).to.equal(200);
    expect((await api.call('deleteStorageUpload', { path: { uploadId: String(deleted.id) } })).status).to.equal(204);
    await notFound(deleted.url, 'deleted');

    const kept = await upload('kept.txt', 'text/plain', Buffer.from('hi'));
    const url = new URL(kept.url);
    const [, , id, fileName = ''] = url.pathname.split('/');
    await notFound(`${url.origin}/uploads/${id}/${'0'.repeat(32)}.txt`, 'another file name');
    await notFound(`${url.origin}/uploads/${id}/${fileName.replace('.txt', '.png')}`, 'another extension');
    await notFound(`${url.origin}/uploads/${id}/${fileName.toUpperCase()}`, 'upper case');
    await notFound(`${url.origin}/uploads/0${id}/${fileName}`, 'a padded id');
    await notFound(`${url.origin}/uploads/${id}/${fileName}.txt`, 'a longer name');
    await notFound(`${url.origin}/uploads/${id}`, 'no file name');

    // Site B's object: served on B's origin, unknown on A's (the same path, and A's own id space).
    const other = await upload('b.txt', 'text/plain', Buffer.from('bee'), apiB);
    expect(other.url.startsWith(`${server.siteB.origin}/uploads/`)).to.equal(true);
    expect((await get(other.url)).bytes.toString('utf8')).to.equal('bee');
    await notFound(other.url.replace(server.siteB.origin, server.siteA.origin), 'site B\'s object on site A');
    await notFound(kept.url.replace(server.siteA.origin, server.siteB.origin), 'site A\'s object on site B');
  });

  it('takes GET and HEAD only', async () => {
    const stored = await upload('a.txt', 'text/plain', Buffer.from('a'));
    for (const method of ['POST', 'PUT', 'DELETE']) {
      expect((await get(stored.url, {}, method)).response.status, method).to.equal(405);
    }
    expect((await get(stored.url)).bytes.toString('utf8')).to.equal('a');
  });
});
