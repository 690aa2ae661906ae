import http from 'node:http';
import { expect } from 'chai';
import { describeEachDatabase } from './support/databases.js';
import { startTestServer, type TestServer } from './support/server.js';

/** A raw request, so a test can send any Host and X-Forwarded-* headers to the loopback socket. */
function request(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describeEachDatabase('sites: one origin = one site, many sites per process', (scratch) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(scratch());
  });
  after(async () => server.stop());

  it('serves each origin its own site', async () => {
    const alpha = await fetch(`http://localhost:${server.port}/`);
    const beta = await fetch(`http://127.0.0.1:${server.port}/`);
    expect(alpha.status).to.equal(200);
    expect(beta.status).to.equal(200);
    const alphaHtml = await alpha.text();
    const betaHtml = await beta.text();
    expect(alphaHtml).to.contain(server.siteA.name).and.not.contain(server.siteB.name);
    expect(betaHtml).to.contain(server.siteB.name).and.not.contain(server.siteA.name);
  });

  it('answers an unknown origin with a 404 that names it, never another site', async () => {
    const response = await request(server.port, '/', { Host: `unknown.example:${server.port}` });
    expect(response.status).to.equal(404);
    expect(response.headers['content-type']).to.match(/^application\/json/);
    const body = JSON.parse(response.body) as { error: string; error_description: string };
    expect(body.error).to.equal('site_not_found');
    expect(body.error_description).to.contain(`http://unknown.example:${server.port}`);
    expect(response.body).not.to.contain(server.siteA.name);
  });

  it('treats another port on a known host as another origin', async () => {
    const response = await request(server.port, '/', { Host: `localhost:${server.port + 1}` });
    expect(response.status).to.equal(404);
  });

  it('ignores X-Forwarded-Host and X-Forwarded-Proto unless TRUST_PROXY is set', async () => {
    const response = await request(server.port, '/', { Host: `unknown.example:${server.port}`, 'X-Forwarded-Host': `localhost:${server.port}`, 'X-Forwarded-Proto': 'http' });
    expect(response.status).to.equal(404);
  });

  it('answers /healthz for any Host, with the database status', async () => {
    const response = await request(server.port, '/healthz', { Host: 'probe.internal' });
    expect(response.status).to.equal(200);
    expect(JSON.parse(response.body)).to.deep.include({ status: 'ok' });
  });

  it('gives every response a request id, echoing a sane caller-supplied one', async () => {
    const echoed = await fetch(`http://localhost:${server.port}/`, { headers: { 'X-Request-Id': 'trace-123' } });
    expect(echoed.headers.get('x-request-id')).to.equal('trace-123');
    const generated = await fetch(`http://localhost:${server.port}/`, { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('answers a wrong method with a JSON 405 and the Allow header', async () => {
    const response = await fetch(`http://localhost:${server.port}/api/oauth/token`);
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.contain('POST');
    expect(await response.json()).to.include({ error: 'method_not_allowed' });
  });

  it('answers an unknown path on a known site with a JSON 404', async () => {
    const response = await fetch(`http://localhost:${server.port}/no/such/path`);
    expect(response.status).to.equal(404);
    expect(await response.json()).to.include({ error: 'not_found' });
  });
});

describeEachDatabase('sites behind a trusted proxy (TRUST_PROXY)', (scratch) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(scratch(), { trustProxy: true });
  });
  after(async () => server.stop());

  it('finds the site from X-Forwarded-Proto and X-Forwarded-Host', async () => {
    const response = await request(server.port, '/', { Host: 'internal:8080', 'X-Forwarded-Host': `127.0.0.1:${server.port}`, 'X-Forwarded-Proto': 'http' });
    expect(response.status).to.equal(200);
    expect(response.body).to.contain(server.siteB.name);
  });

  it('does not match an https forwarded origin to the http site', async () => {
    const response = await request(server.port, '/', { Host: 'internal:8080', 'X-Forwarded-Host': `127.0.0.1:${server.port}`, 'X-Forwarded-Proto': 'https' });
    expect(response.status).to.equal(404);
  });
});
