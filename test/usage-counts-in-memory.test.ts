import { expect } from 'chai';
import type { Knex } from 'knex';
import { flushDeprecatedUses, pendingDeprecatedUses, recordDeprecatedUses } from '../src/deprecations/usage.js';
import { releaseLease, takeLease } from '../src/housekeeping/lease.js';
import { startUsageFlushJob, USAGE_FLUSH_LEASE } from '../src/housekeeping/usage-flush-job.js';
import { Metrics } from '../src/metrics/metrics.js';
import { createLogger } from '../src/shared/logger.js';
import { describeEachDatabase } from './support/databases.js';
import { gql, memberToken } from './support/member-api.js';
import { makeClient, makeUser } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

const WRITE = /^\s*(insert|update|delete|replace)\b/i;

/** The statements `work` issues on `db`, writes only. */
async function writesOf(db: Knex, work: () => Promise<unknown>): Promise<string[]> {
  const writes: string[] = [];
  const onQuery = (query: { sql: string }) => {
    if (WRITE.test(query.sql)) writes.push(query.sql);
  };
  db.on('query', onQuery);
  try {
    await work();
  } finally {
    db.off('query', onQuery);
  }
  return writes;
}

describeEachDatabase('deprecated-element uses are counted in memory and written in additive batches', (scratch) => {
  let server: TestServer;
  let clientRef: number;
  let clientId: string;
  const log = createLogger('silent');

  before(async function () {
    this.timeout(60000);
    server = await startTestServer(scratch());
    const app = await makeClient(scratch().db, server.siteA, { audience: 'member', confidential: false, scopes: ['account:read'] });
    clientRef = app.client.ref;
    clientId = app.client.clientId;
  });
  after(async () => server.stop());

  const stored = async (element: string) =>
    (await scratch().db('deprecation_usage').where({ site_id: server.siteA.id, element }).first('uses', 'last_used_at')) as { uses: number | string; last_used_at: unknown } | undefined;

  it('counts a call without a statement, and labels the metric by API and element only', async () => {
    const metrics = new Metrics(scratch().db);
    const writes = await writesOf(scratch().db, async () => {
      recordDeprecatedUses({ db: scratch().db, metrics, log }, { siteId: server.siteA.id, client: { ref: clientRef, clientId }, api: 'graphql', elements: ['Course.slug'] });
    });
    expect(writes).to.deep.equal([]);
    expect(pendingDeprecatedUses(scratch().db)).to.equal(1);
    expect(await stored('Course.slug')).to.equal(undefined);
    const exposition = await metrics.registry.metrics();
    expect(exposition).to.include('schoolgate_deprecated_uses_total{api="graphql",element="Course.slug"} 1');
    expect(exposition).not.to.include(clientId);
    await flushDeprecatedUses(scratch().db);
    expect(Number((await stored('Course.slug'))?.uses)).to.equal(1);
  });

  it('adds each flush to the stored counts (as several instances would), keeping the latest use', async () => {
    const metrics = new Metrics(scratch().db);
    const use = { siteId: server.siteA.id, client: { ref: clientRef, clientId }, api: 'admin' as const, elements: ['getMcpConnections'] };
    const earlier = new Date(Date.now() - 60_000);
    const later = new Date();
    for (let i = 0; i < 3; i += 1) recordDeprecatedUses({ db: scratch().db, metrics, log }, use, later);
    expect(pendingDeprecatedUses(scratch().db)).to.equal(1);
    expect(await flushDeprecatedUses(scratch().db)).to.equal(1);
    for (let i = 0; i < 2; i += 1) recordDeprecatedUses({ db: scratch().db, metrics, log }, use, earlier);
    await flushDeprecatedUses(scratch().db);
    const row = await stored('getMcpConnections');
    expect(Number(row?.uses)).to.equal(5);
    expect(new Date(typeof row?.last_used_at === 'string' && /^\d+$/.test(row.last_used_at) ? Number(row.last_used_at) : (row?.last_used_at as Date | number)).getTime()).to.equal(later.getTime());
  });

  it('writes 1,200 counts in three upsert statements, one per batch of 500', async () => {
    const metrics = new Metrics(scratch().db);
    const elements = Array.from({ length: 1200 }, (_, index) => `Batch.field${index}`);
    recordDeprecatedUses({ db: scratch().db, metrics, log }, { siteId: server.siteA.id, client: { ref: clientRef, clientId }, api: 'graphql', elements });
    const writes = await writesOf(scratch().db, () => flushDeprecatedUses(scratch().db));
    expect(writes).to.have.length(3);
    expect(Number((await stored('Batch.field1199'))?.uses)).to.equal(1);
  });

  it('the flush job writes under its lease: while another instance holds it the counts wait in memory, and stopping writes them', async function () {
    this.timeout(20000);
    const metrics = new Metrics(scratch().db);
    expect(await takeLease(scratch().db, USAGE_FLUSH_LEASE, 'another-instance', 60_000)).to.equal(true);
    recordDeprecatedUses({ db: scratch().db, metrics, log }, { siteId: server.siteA.id, client: { ref: clientRef, clientId }, api: 'graphql', elements: ['Leased.field'] });
    const job = startUsageFlushJob(scratch().db, log, { intervalSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await stored('Leased.field')).to.equal(undefined);
    expect(pendingDeprecatedUses(scratch().db)).to.equal(1);
    await releaseLease(scratch().db, USAGE_FLUSH_LEASE, 'another-instance', {});
    await job.stop();
    expect(Number((await stored('Leased.field'))?.uses)).to.equal(1);
    expect(pendingDeprecatedUses(scratch().db)).to.equal(0);
  });
});

describeEachDatabase('member API, MCP and userinfo requests write nothing', (scratch) => {
  let server: TestServer;
  let token: string;

  before(async function () {
    this.timeout(60000);
    server = await startTestServer(scratch());
    const member = await makeUser(scratch().db, server.siteA, ['student'], 'Reader Rowan');
    token = await memberToken(scratch().db, server.siteA, member);
  });
  after(async () => server.stop());

  const requests: Array<[string, () => Promise<number>]> = [
    ['a member GraphQL query', async () => (await gql(server.siteA.origin, 'A', token, '{ viewer { id enrolledCourses { nodes { title } } } }')).status],
    [
      'an MCP member tool call',
      async () =>
        (
          await fetch(`${server.siteA.origin}/mcp`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${token}` },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_my_courses', arguments: {} } }),
          })
        ).status,
    ],
    ['userinfo', async () => (await fetch(`${server.siteA.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status],
  ];

  for (const [name, request] of requests) {
    it(`${name}: no INSERT, UPDATE or DELETE once the token's first use is recorded`, async () => {
      // Warm-up: the token's first use is the one write a token rule requires at once (it revokes a refreshed parent).
      expect(await request()).to.equal(200);
      let status = 0;
      const writes = await writesOf(scratch().db, async () => {
        status = await request();
      });
      expect(status).to.equal(200);
      expect(writes).to.deep.equal([]);
    });
  }
});
