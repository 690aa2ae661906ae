import { expect } from 'chai';
import { Metrics } from '../src/metrics/metrics.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createLogger } from '../src/shared/logger.js';
import { createSite, type Site } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { graphqlPath, memberToken } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';
import { testConfig } from './support/server.js';

/** The value of one sample of the exposition, 0 when it is absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const requests = (route: string, method: string, status: number) => `schoolgate_http_requests_total{route="${route}",method="${method}",status="${status}"}`;

/**
 * Every answer is counted under its route's template, refusals included: authentication refusing before the admin
 * API's handler runs, a known path asked with another method, an interface's own 401. Only a path no route has (and
 * an origin no site has) shares `(unrouted)`.
 */
describeEachDatabase('metrics: every answer under its route template', (scratch) => {
  let running: RunningServer;
  let site: Site;
  let metricsUrl: string;

  before(async () => {
    running = await startServer(testConfig({ database: scratch().config, metricsPort: 0, variant: 'A' }), { db: scratch().db, logger: createLogger('silent') });
    const port = Number(new URL(running.listeningOn).port);
    site = await createSite(scratch().db, { origin: `http://localhost:${port}`, name: 'Routes School', subdomain: `routes-${port}` });
    if (!running.metricsOn) throw new Error('no metrics listener');
    metricsUrl = running.metricsOn;
  });
  after(() => running.stop(1000));

  const scrape = async () => (await fetch(metricsUrl)).text();
  const status = async (path: string, init: RequestInit = {}) => (await fetch(`${site.origin}${path}`, { redirect: 'manual', ...init })).status;

  it('counts admin API refusals (401 without a token, 403 for a member token, 405) under the operation path', async () => {
    const before = await scrape();
    const member = await memberToken(scratch().db, site, await makeUser(scratch().db, site, ['student']), 'openid profile');
    expect(await status('/api/admin/v1/courses/12345')).to.equal(401);
    expect(await status('/api/admin/v1/courses/12345', { headers: { authorization: `Bearer ${member}` } })).to.equal(403);
    expect(await status('/api/admin/v1/courses/12345', { method: 'PUT' })).to.equal(405);
    expect(await status('/api/admin/v1/no-such-resource')).to.equal(404);
    const after = await scrape();
    const course = '/api/admin/v1/courses/{courseId}';
    expect(sample(after, requests(course, 'GET', 401)) - sample(before, requests(course, 'GET', 401))).to.equal(1);
    expect(sample(after, requests(course, 'GET', 403)) - sample(before, requests(course, 'GET', 403))).to.equal(1);
    expect(sample(after, requests(course, 'PUT', 405)) - sample(before, requests(course, 'PUT', 405))).to.equal(1);
    expect(sample(after, requests('(unrouted)', 'GET', 404)) - sample(before, requests('(unrouted)', 'GET', 404))).to.equal(1);
    expect(after).not.to.contain('12345');
    expect(after).not.to.contain('no-such-resource');
    expect(after).not.to.contain('(unrouted)",method="GET",status="401"');
  });

  it('counts OAuth, member API, /mcp and admin page refusals under their routes, and 405s under the path they refuse', async () => {
    const before = await scrape();
    const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=nobody&client_secret=wrong' };
    expect(await status('/api/oauth/token', form)).to.equal(401);
    expect(await status('/api/oauth/token')).to.equal(405);
    expect(await status('/api/oauth/userinfo')).to.equal(401);
    const graphql = graphqlPath('A');
    expect(await status(graphql, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' })).to.equal(401);
    expect(await status('/mcp', { headers: { authorization: 'Bearer not-a-token' } })).to.equal(401);
    expect(await status('/admin/sign-out')).to.equal(405);
    const after = await scrape();
    const grew = (series: string) => sample(after, series) - sample(before, series);
    expect(grew(requests('/api/oauth/token', 'POST', 401))).to.equal(1);
    expect(grew(requests('/api/oauth/token', 'GET', 405))).to.equal(1);
    expect(grew(requests('/api/oauth/userinfo', 'GET', 401))).to.equal(1);
    expect(grew(requests(graphql, 'POST', 401))).to.equal(1);
    expect(grew(requests('/mcp', 'GET', 401))).to.equal(1);
    expect(grew(requests('/admin/sign-out', 'GET', 405))).to.equal(1);
  });

  it('counts an origin no site has, and any path no route has, under the one (unrouted) label', async () => {
    const before = await scrape();
    const port = new URL(site.origin).port;
    expect((await fetch(`http://127.0.0.1:${port}/some/page`)).status).to.equal(404);
    for (let i = 0; i < 3; i += 1) expect(await status(`/nothing/here/${i}`)).to.equal(404);
    const after = await scrape();
    expect(sample(after, requests('(unrouted)', 'GET', 404)) - sample(before, requests('(unrouted)', 'GET', 404))).to.equal(4);
    expect(after).not.to.contain('/nothing/here');
    expect(after).not.to.contain('/some/page');
  });
});

describeEachDatabase('metrics: names and labels follow the Prometheus conventions', (scratch) => {
  /** `# TYPE name type` lines of an exposition. */
  const typesOf = (text: string) => [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name: name ?? '', type: type ?? '' }));

  it('ends counters in _total and nothing else; names the product metrics schoolgate_ and Node.js process metrics by their standard names', async () => {
    const metrics = new Metrics(scratch().db, { processMetrics: true });
    const types = typesOf(await metrics.registry.metrics());
    expect(types.length).to.be.greaterThan(20);
    for (const { name, type } of types) {
      if (type === 'counter') expect(name, name).to.match(/_total$/);
      else expect(name, `${name} is a ${type}`).not.to.match(/_total$/);
      expect(name, name).to.match(/^(schoolgate|process|nodejs)_/);
    }
    const names = types.map(({ name }) => name);
    for (const standard of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds', 'nodejs_active_handles']) {
      expect(names, standard).to.include(standard);
    }
    expect(names.filter((name) => name.startsWith('schoolgate_process_') || name.startsWith('schoolgate_nodejs_'))).to.deep.equal([]);
    // Durations in seconds, sizes in bytes: a unit in the name wherever the value has one.
    expect(names.filter((name) => /duration|latency|_time_|_size_/.test(name) && !/_(seconds|bytes)(_total)?$/.test(name))).to.deep.equal([]);
  });

  it('keeps process metrics off a process that does not serve them', async () => {
    const names = typesOf(await new Metrics(scratch().db).registry.metrics()).map(({ name }) => name);
    expect(names.filter((name) => !name.startsWith('schoolgate_'))).to.deep.equal([]);
  });

  it('uses only labels whose values the product bounds', async () => {
    // route: a template or (unrouted); method: Node's parser knows a fixed list; status: three digits; grant_type and
    // tool: a known name or one bucket; outcome: a fixed set or an error code; api, element: the contracts; the rest
    // are prom-client's (handle and request types, GC kinds, heap spaces, the Node.js version).
    const bounded = ['route', 'method', 'status', 'grant_type', 'outcome', 'tool', 'api', 'element', 'type', 'kind', 'space', 'version', 'major', 'minor', 'patch'];
    const metrics = new Metrics(scratch().db, { processMetrics: true });
    for (const metric of await metrics.registry.getMetricsAsJSON()) {
      const labels = new Set(metric.values.flatMap((value) => Object.keys(value.labels)));
      const declared = (metrics.registry.getSingleMetric(metric.name) as unknown as { labelNames?: string[] } | undefined)?.labelNames ?? [];
      for (const label of [...labels, ...declared]) expect(bounded, `${metric.name}{${label}}`).to.include(label);
    }
  });
});
