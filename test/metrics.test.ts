import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createApp } from '../src/app.js';
import { createServices } from '../src/services.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/shared/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createSite, type Site } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { memberToken } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';
import { testConfig } from './support/server.js';

/** The metric lines of a Prometheus text exposition whose name starts with `name` (samples only, no comments). */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(name));
}

/**
 * Operations: Prometheus metrics on their own listener (METRICS_PORT), never on a site's origin, and the
 * readiness probe /readyz next to the liveness probe /healthz.
 */
describeEachDatabase('metrics and readiness', (scratch) => {
  let running: RunningServer;
  let site: Site;
  let metricsUrl: string;

  before(async () => {
    running = await startServer(testConfig({ database: scratch().config, metricsPort: 0 }), { db: scratch().db, logger: createLogger('silent') });
    const port = Number(new URL(running.listeningOn).port);
    site = await createSite(scratch().db, { origin: `http://localhost:${port}`, name: 'Metrics School', subdomain: `metrics-${port}` });
    if (!running.metricsOn) throw new Error('no metrics listener');
    metricsUrl = running.metricsOn;
  });
  after(() => running.stop(1000));

  it('is off unless METRICS_PORT is set, and listens on loopback by default', () => {
    expect(loadConfig({}).metricsPort).to.equal(null);
    expect(loadConfig({ METRICS_PORT: '9464' })).to.include({ metricsPort: 9464, metricsHost: '127.0.0.1' });
    expect(new URL(metricsUrl).hostname).to.equal('127.0.0.1');
  });

  it('counts requests by route template, method and status, and times them', async () => {
    const token = await memberToken(scratch().db, site, await makeUser(scratch().db, site, ['student']), 'openid profile');
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${site.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status).to.equal(200);
    expect((await fetch(`${site.origin}/api/admin/v1/courses/12345`)).status).to.equal(401);
    expect((await fetch(`${site.origin}/no/such/page`)).status).to.equal(404);
    const response = await fetch(metricsUrl);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(samples(text, 'schoolgate_http_requests_total')).to.include('schoolgate_http_requests_total{route="/api/oauth/userinfo",method="GET",status="200"} 3');
    expect(samples(text, 'schoolgate_http_request_duration_seconds_count')).to.include('schoolgate_http_request_duration_seconds_count{route="/api/oauth/userinfo",method="GET",status="200"} 3');
    // Raw paths never become labels: the admin API reports its OpenAPI path, anything unrouted one bucket.
    expect(text).not.to.contain('12345');
    expect(text).not.to.contain('/no/such/page');
    expect(samples(text, 'schoolgate_http_requests_total{route="(unrouted)",method="GET",status="404"}')).to.have.length(1);
    expect(samples(text, 'schoolgate_token_requests_total{grant_type="authorization_code",outcome="issued"}')).to.deep.equal(['schoolgate_token_requests_total{grant_type="authorization_code",outcome="issued"} 1']);
    expect(samples(text, 'schoolgate_db_pool_connections_in_use')).to.have.length(1);
    expect(samples(text, 'process_resident_memory_bytes')).to.have.length(1);
  });

  it('counts refused token requests by grant and error, with invented grant types in one bucket', async () => {
    const post = (body: Record<string, string>) => fetch(`${site.origin}/api/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
    expect((await post({ grant_type: 'refresh_token', refresh_token: 'nope', client_id: 'nobody' })).status).to.be.within(400, 401);
    expect((await post({ grant_type: 'made-up-grant-1' })).status).to.equal(400);
    expect((await post({ grant_type: 'made-up-grant-2' })).status).to.equal(400);
    const text = await (await fetch(metricsUrl)).text();
    expect(samples(text, 'schoolgate_token_requests_total{grant_type="other",outcome="unsupported_grant_type"}')).to.deep.equal(['schoolgate_token_requests_total{grant_type="other",outcome="unsupported_grant_type"} 2']);
    expect(samples(text, 'schoolgate_token_requests_total{grant_type="refresh_token"')).to.have.length(1);
    expect(text).not.to.contain('made-up-grant');
  });

  it('is not served on any site origin, and the metrics listener serves nothing else', async () => {
    expect((await fetch(`${site.origin}/metrics`)).status).to.equal(404);
    expect((await fetch(metricsUrl.replace('/metrics', '/healthz'))).status).to.equal(404);
  });

  it('/readyz answers 200 with the database when serving, 503 while starting and draining; /healthz stays liveness', async () => {
    const ready = await fetch(`${site.origin}/readyz`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.include({ status: 'ready' });
    // The lifecycle states the server passes through, on an app of its own: start-up (before listening) and a shutdown.
    const services = createServices(testConfig({ database: scratch().config }), scratch().db, createLogger('silent'));
    const server = http.createServer(createApp(services).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const state of ['starting', 'draining'] as const) {
        services.lifecycle.state = state;
        const answer = await fetch(`${url}/readyz`);
        expect(answer.status, state).to.equal(503);
        expect(await answer.json()).to.deep.equal({ status: state });
        expect((await fetch(`${url}/healthz`)).status, state).to.equal(200);
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
