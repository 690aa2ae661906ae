import zlib from 'node:zlib';
import { expect } from 'chai';
import { COMPRESSION_THRESHOLD_BYTES } from '../src/http/compression.js';
import { OAUTH_PATHS } from '../src/oauth/endpoints.js';
import { describeEachDatabase } from './support/databases.js';
import { rawRequest, type RawResponse } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/server.js';

function decoded(answer: RawResponse): Buffer {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'gzip') return zlib.gunzipSync(answer.body);
  if (encoding === 'br') return zlib.brotliDecompressSync(answer.body);
  if (encoding === undefined) return answer.body;
  throw new Error(`unexpected Content-Encoding ${encoding}`);
}

const varies = (answer: RawResponse) => String(answer.headers.vary ?? '').toLowerCase().split(/\s*,\s*/).includes('accept-encoding');

/**
 * gzip and br for JSON, HTML and text answers over 1 KiB, for clients that ask; identity for those that do not (the
 * bench's autocannon), for small answers, for the /mcp event stream and for the pages of a browser session.
 */
describeEachDatabase('response compression', (scratch) => {
  let server: TestServer;
  let origin: string;

  before(async () => {
    server = await startTestServer(scratch());
    origin = server.siteA.origin;
  });
  after(() => server.stop());

  it('sends /openapi.json as gzip or br to clients that accept them, decoding to the identity answer', async () => {
    const identity = await rawRequest(`${origin}/openapi.json`, {});
    expect(identity.status).to.equal(200);
    expect(identity.headers['content-encoding']).to.equal(undefined);
    expect(identity.body.length).to.be.greaterThan(100_000);
    expect(varies(identity)).to.equal(true);
    const text = identity.body.toString('utf8');
    expect((JSON.parse(text) as { servers: Array<{ url: string }> }).servers[0]?.url).to.equal(`${origin}/api/admin/v1`);

    for (const [accept, expected] of [['gzip', 'gzip'], ['br', 'br'], ['gzip, deflate, br', 'br'], ['br;q=0.5, gzip', 'gzip']] as const) {
      // Twice: the second answer comes from the per-origin cache.
      for (let round = 0; round < 2; round += 1) {
        const answer = await rawRequest(`${origin}/openapi.json`, { 'accept-encoding': accept });
        expect(answer.status, accept).to.equal(200);
        expect(answer.headers['content-encoding'], accept).to.equal(expected);
        expect(answer.headers['content-type'], accept).to.match(/^application\/json/);
        expect(varies(answer), accept).to.equal(true);
        expect(answer.body.length, accept).to.be.below(identity.body.length / 5);
        expect(decoded(answer).toString('utf8'), accept).to.equal(text);
      }
    }
    // Each origin has its own document (its servers URL), compressed on its own.
    const other = await rawRequest(`${server.siteB.origin}/openapi.json`, { 'accept-encoding': 'gzip' });
    expect((JSON.parse(decoded(other).toString('utf8')) as { servers: Array<{ url: string }> }).servers[0]?.url).to.equal(`${server.siteB.origin}/api/admin/v1`);
  });

  it('compresses other JSON and public HTML over the threshold, per request', async () => {
    const metadataPath = OAUTH_PATHS.authorizationServerMetadata;
    const identity = await rawRequest(`${origin}${metadataPath}`, {});
    expect(identity.body.length).to.be.greaterThan(COMPRESSION_THRESHOLD_BYTES);
    const gzip = await rawRequest(`${origin}${metadataPath}`, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).to.equal('gzip');
    expect(JSON.parse(decoded(gzip).toString('utf8'))).to.deep.equal(JSON.parse(identity.body.toString('utf8')));

    const page = await rawRequest(`${origin}/docs`, { 'accept-encoding': 'br', accept: 'text/html' });
    expect(page.status).to.equal(200);
    expect(page.headers['content-type']).to.match(/^text\/html/);
    expect(page.headers['content-encoding']).to.equal('br');
    expect(decoded(page).toString('utf8')).to.contain('<html');

    const guideIdentity = await rawRequest(`${origin}/auth.md`, {});
    const guide = await rawRequest(`${origin}/auth.md`, { 'accept-encoding': 'gzip' });
    expect(guide.headers['content-type']).to.match(/^text\/markdown/);
    expect(guide.headers['content-encoding']).to.equal('gzip');
    expect(decoded(guide).toString('utf8')).to.equal(guideIdentity.body.toString('utf8'));
  });

  it('leaves answers under 1 KiB as they are, still saying Vary: Accept-Encoding', async () => {
    const small = await rawRequest(`${origin}/healthz`, { 'accept-encoding': 'gzip, br' });
    expect(small.status).to.equal(200);
    expect(small.body.length).to.be.below(COMPRESSION_THRESHOLD_BYTES);
    expect(small.headers['content-encoding']).to.equal(undefined);
    expect(JSON.parse(small.body.toString('utf8'))).to.have.property('status');
    expect(varies(small)).to.equal(true);
  });

  it('never compresses the /mcp event stream', async () => {
    const answer = await rawRequest(
      `${origin}/mcp`,
      { 'content-type': 'application/json', accept: 'text/event-stream, application/json;q=0.5', 'mcp-protocol-version': '2025-06-18', 'accept-encoding': 'gzip, br' },
      { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) },
    );
    expect(answer.status).to.equal(200);
    expect(answer.headers['content-type']).to.match(/^text\/event-stream/);
    expect(answer.headers['content-encoding']).to.equal(undefined);
    expect(answer.body.toString('utf8')).to.match(/^(event: message\n)?(id: \S+\n)?data: \{/m);
  });

  it('does not compress the pages of a browser session (no-store HTML), so their size tells nothing of their secrets', async () => {
    const page = await rawRequest(`${origin}/admin`, { 'accept-encoding': 'gzip, br', accept: 'text/html' });
    expect(page.status).to.equal(200);
    expect(page.headers['cache-control']).to.contain('no-store');
    expect(page.body.length).to.be.greaterThan(COMPRESSION_THRESHOLD_BYTES);
    expect(page.headers['content-encoding']).to.equal(undefined);
  });

  it('answers a client that sends no Accept-Encoding as before (the bench)', async () => {
    const answer = await rawRequest(`${origin}${OAUTH_PATHS.authorizationServerMetadata}`, {});
    expect(answer.headers['content-encoding']).to.equal(undefined);
    expect(answer.headers['content-length']).to.equal(String(answer.body.length));
  });
});
