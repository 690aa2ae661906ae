import http from 'node:http';
import { expect } from 'chai';
import { describeEachDatabase } from './support/databases.js';
import { startTestServer, type TestServer } from './support/server.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/**
 * Errors a browser meets outside the pages that have their own: a small HTML page with the request id,
 * while API clients keep their JSON (and every API path stays JSON whatever the client accepts).
 */
describeEachDatabase('error pages for browsers', (scratch) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(scratch());
  });
  after(() => server.stop());

  const get = (path: string, accept?: string, origin = server.siteA.origin) => fetch(`${origin}${path}`, { headers: accept ? { accept } : {} });

  it('a browser gets a page for an unknown path: the school, the path, a way home and the request id', async () => {
    const response = await get('/courses/foundations-of-typography', BROWSER_ACCEPT);
    expect(response.status).to.equal(404);
    expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const page = await response.text();
    const requestId = response.headers.get('x-request-id') ?? '';
    expect(requestId).to.not.equal('');
    expect(page).to.contain('<h1>Page not found</h1>');
    expect(page).to.contain(`<code>GET /courses/foundations-of-typography</code> on ${server.siteA.name}`);
    expect(page).to.contain(`request id <code>${requestId}</code>`);
    expect(page).to.contain('<a href="/">');
  });

  it('a browser gets a page for a method a page does not take, with Allow kept', async () => {
    const response = await fetch(`${server.siteA.origin}/`, { method: 'DELETE', headers: { accept: BROWSER_ACCEPT } });
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.contain('GET');
    // Not a navigation (DELETE): JSON as before.
    expect(await response.json()).to.include({ error: 'method_not_allowed' });
  });

  it('a browser on an origin that is no school gets a page naming that origin, without any school name', async () => {
    // fetch() may not set Host; node:http may.
    const { status, page } = await new Promise<{ status: number; page: string }>((resolve, reject) => {
      const request = http.get(`${server.siteA.origin}/anything`, { headers: { accept: BROWSER_ACCEPT, host: 'unknown.example' } }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, page: body }));
      });
      request.on('error', reject);
    });
    expect(status).to.equal(404);
    expect(page).to.contain('<h1>No school site at this address</h1>');
    expect(page).to.contain('unknown.example');
    expect(page).not.to.contain(server.siteA.name);
  });

  it('API clients keep JSON: no Accept, */*, JSON preferred, and every API path whatever the client accepts', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const response = await get('/courses/foundations-of-typography', accept);
      expect(response.status, String(accept)).to.equal(404);
      expect(await response.json(), String(accept)).to.include({ error: 'not_found' });
    }
    for (const path of ['/api/oauth/userinfo', '/api/admin/v1/courses', '/.well-known/no-such-document', '/api/nothing-here', '/mcp', '/member/graphql', '/healthz']) {
      const response = await get(path, BROWSER_ACCEPT);
      expect(response.headers.get('content-type'), path).to.match(/json/);
    }
  });
});
