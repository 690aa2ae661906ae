import { expect } from 'chai';
import { releaseLease, takeLease } from '../src/housekeeping/lease.js';
import { startUsageFlushJob, USAGE_FLUSH_LEASE } from '../src/housekeeping/usage-flush-job.js';
import { createLogger } from '../src/shared/logger.js';
import { elementBundle, flushUses, pendingUses, recordUse, usageBundle } from '../src/usage/tally.js';
import { describeEachDatabase } from './support/databases.js';
import { gql, memberToken } from './support/member-api.js';
import { makeClient, makeUser } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';
import { writesOf } from './support/statements.js';

const log = createLogger('silent');

describeEachDatabase('usage is counted in memory and written in additive batches', (scratch) => {
  let server: TestServer;
  let clientRef: number;

  before(async function () {
    this.timeout(60000);
    server = await startTestServer(scratch());
    const app = await makeClient(scratch().db, server.siteA, { audience: 'member', confidential: false, scopes: ['account:read'] });
    clientRef = app.client.ref;
  });
  after(async () => server.stop());

  const stored = async (element: string) =>
    (await scratch().db('api_usage').where({ site_id: server.siteA.id, element }).first('uses', 'last_used_at')) as { uses: number | string; last_used_at: unknown } | undefined;

  it('counts a call without a statement; a bundle of elements is one count until the flush expands it', async () => {
    const bundle = usageBundle('graphql', ['Course.slug', 'Query.courses']);
    const writes = await writesOf(scratch().db, async () => {
      recordUse(scratch().db, server.siteA.id, clientRef, bundle);
      recordUse(scratch().db, server.siteA.id, clientRef, bundle);
    });
    expect(writes).to.deep.equal([]);
    expect(pendingUses(scratch().db)).to.equal(1);
    expect(await stored('Course.slug')).to.equal(undefined);
    expect(await flushUses(scratch().db)).to.equal(2);
    expect(Number((await stored('Course.slug'))?.uses)).to.equal(2);
    expect(Number((await stored('Query.courses'))?.uses)).to.equal(2);
  });

  it('adds each flush to the stored counts (as several instances would), keeping the latest use', async () => {
    const bundle = elementBundle('admin', 'getMcpConnections');
    const earlier = Date.now() - 60_000;
    const later = Date.now();
    for (let i = 0; i < 3; i += 1) recordUse(scratch().db, server.siteA.id, clientRef, bundle, later);
    expect(pendingUses(scratch().db)).to.equal(1);
    expect(await flushUses(scratch().db)).to.equal(1);
    for (let i = 0; i < 2; i += 1) recordUse(scratch().db, server.siteA.id, clientRef, bundle, earlier);
    await flushUses(scratch().db);
    const row = await stored('getMcpConnections');
    expect(Number(row?.uses)).to.equal(5);
    expect(new Date(typeof row?.last_used_at === 'string' && /^\d+$/.test(row.last_used_at) ? Number(row.last_used_at) : (row?.last_used_at as Date | number)).getTime()).to.equal(later);
  });

  it('writes 1,200 counts in three upsert statements, one per batch of 500', async () => {
    const elements = Array.from({ length: 1200 }, (_, index) => `Batch.field${index}`);
    recordUse(scratch().db, server.siteA.id, clientRef, usageBundle('graphql', elements));
    const writes = await writesOf(scratch().db, () => flushUses(scratch().db));
    expect(writes).to.have.length(3);
    expect(Number((await stored('Batch.field1199'))?.uses)).to.equal(1);
  });

  it('the flush job writes under its lease: while another instance holds it the counts wait in memory, and stopping writes them', async function () {
    this.timeout(20000);
    expect(await takeLease(scratch().db, USAGE_FLUSH_LEASE, 'another-instance', 60_000)).to.equal(true);
    recordUse(scratch().db, server.siteA.id, clientRef, elementBundle('graphql', 'Leased.field'));
    const job = startUsageFlushJob(scratch().db, log, { intervalSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await stored('Leased.field')).to.equal(undefined);
    expect(pendingUses(scratch().db)).to.equal(1);
    await releaseLease(scratch().db, USAGE_FLUSH_LEASE, 'another-instance', {});
    await job.stop();
    expect(Number((await stored('Leased.field'))?.uses)).to.equal(1);
    expect(pendingUses(scratch().db)).to.equal(0);
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
