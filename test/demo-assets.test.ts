import { expect } from 'chai';
import { DEMO_ASSET_PATHS } from '../src/demo/assets.js';
import { buildDemoDocument } from '../src/demo/demo-school.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { describeEachDatabase } from './support/databases.js';
import { rawRequest } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/server.js';

/** Every string in the document, wherever it is. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

/**
 * The SVG is a well-formed XML document with an <svg> root in the SVG namespace: every tag closed in order, every
 * attribute double-quoted, only XML's own entities; and it is passive (no script, event handler or link).
 */
function expectPassiveSvg(text: string, where: string): void {
  expect(text, where).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[ >]/);
  expect(text.trimEnd(), where).to.match(/<\/svg>$/);
  expect(text, where).to.not.match(/<script|\son[a-z]+=|href|<foreignObject|url\(|<style/i);
  const open: string[] = [];
  const tag = /<(\/?)([a-zA-Z][\w-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let end = 0;
  for (const match of text.matchAll(tag)) {
    const between = text.slice(end, match.index);
    expect(between, `${where}: text between tags`).to.not.match(/[<>]|&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i);
    end = match.index + match[0].length;
    const [, closing, name = '', , selfClosing] = match;
    if (closing) expect(open.pop(), `${where}: </${name}>`).to.equal(name);
    else if (!selfClosing) open.push(name);
  }
  expect(text.slice(end).trim(), `${where}: after the root`).to.equal('');
  expect(open, `${where}: unclosed elements`).to.deep.equal([]);
}

describeEachDatabase('demo school: every picture its document links is served', (scratch) => {
  let server: TestServer;
  let origin: string;
  let assetUrls: string[];

  before(async () => {
    server = await startTestServer(scratch());
    origin = server.siteA.origin;
    const document = buildDemoDocument(origin, new Date());
    await importSiteDocument(scratch().db, document);
    assetUrls = [...new Set(strings(document).filter((text) => text.startsWith(`${origin}/assets/`) || /favicon/i.test(text)))].sort();
  });
  after(() => server.stop());

  it('links exactly the pictures it serves, as SVG', () => {
    expect(assetUrls).to.deep.equal(Object.values(DEMO_ASSET_PATHS).map((path) => `${origin}${path}`).sort());
    expect(assetUrls.every((url) => url.endsWith('.svg'))).to.equal(true);
  });

  it('serves each as a passive SVG with its type, nosniff, the sandbox, an ETag and a week of caching', async () => {
    for (const url of assetUrls) {
      const answer = await rawRequest(url);
      expect(answer.status, url).to.equal(200);
      expect(answer.headers['content-type'], url).to.equal('image/svg+xml');
      expect(answer.headers['content-length'], url).to.equal(String(Buffer.byteLength(answer.body)));
      expect(answer.headers['x-content-type-options'], url).to.equal('nosniff');
      expect(answer.headers['content-security-policy'], url).to.equal("sandbox; default-src 'none'");
      expect(answer.headers['cache-control'], url).to.equal('public, max-age=604800');
      expect(answer.headers.etag, url).to.match(/^"[\w-]{27}"$/);
      expect(Buffer.byteLength(answer.body), url).to.be.below(4096);
      expectPassiveSvg(answer.body.toString('utf8'), url);

      const again = await rawRequest(url, { 'if-none-match': answer.headers.etag ?? '' });
      expect(again.status, url).to.equal(304);
      expect(again.body.length, url).to.equal(0);
      const head = await rawRequest(url, {}, { method: 'HEAD' });
      expect(head.status, url).to.equal(200);
      expect(head.body.length).to.equal(0);
      expect(head.headers['content-length'], url).to.equal(answer.headers['content-length']);
    }
  });

  it('draws each course cover with its title and the school\'s colours', async () => {
    const cover = (await rawRequest(`${origin}${DEMO_ASSET_PATHS.designSystemsCover}`)).body.toString('utf8');
    expect(cover).to.contain('<title>Design Systems for Product Teams</title>');
    expect(cover).to.contain('fill="#1f3a5f"').and.to.contain('fill="#f2a541"');
    expect((await rawRequest(`${origin}${DEMO_ASSET_PATHS.miaAvatar}`)).body.toString('utf8')).to.contain('>MC</text>');
  });

  it('serves them on every site\'s origin, and nothing else under /assets', async () => {
    expect((await rawRequest(`${server.siteB.origin}${DEMO_ASSET_PATHS.logo}`)).status).to.equal(200);
    for (const path of ['/assets/courses/typography.jpg', '/assets/other.svg', '/assets/', '/assets/courses/../favicon.svg.bak']) {
      expect((await rawRequest(`${origin}${path}`)).status, path).to.equal(404);
    }
  });

  it('answers the /favicon.ico every browser asks for with a cacheable 204', async () => {
    const answer = await rawRequest(`${origin}/favicon.ico`);
    expect(answer.status).to.equal(204);
    expect(answer.body.length).to.equal(0);
    expect(answer.headers['cache-control']).to.equal('public, max-age=604800');
    expect((await rawRequest(`${origin}/favicon.ico`, {}, { method: 'HEAD' })).status).to.equal(204);
  });
});
