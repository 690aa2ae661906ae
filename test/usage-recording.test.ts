import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { User } from '../src/accounts/users.js';
import { insertTrustedDocuments } from '../src/data/trusted-documents.js';
import type { Database } from '../src/db/connection.js';
import { prune } from '../src/housekeeping/prune.js';
import type { Site } from '../src/sites/sites.js';
import { flushUses, pendingUses } from '../src/usage/tally.js';
import { AdminApi, issueToken } from './support/admin.js';
import { describeEachDatabase } from './support/databases.js';
import { graphqlPath } from './support/member-api.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';
import { writesOf } from './support/statements.js';

/**
 * The usage counts (docs/usage.md, "What is counted"): real requests to the member API, the admin API and /mcp add
 * exactly the elements they used, once per request, in memory; nothing is stored until the tally is flushed, and the
 * prune keeps the retention and drops the counts of deleted clients.
 */

/** A member token of a new client, with the client's oauth_clients.id (its usage rows are its own). */
async function memberClient(db: Database, site: Site, user: User): Promise<{ token: string; clientRef: number }> {
  const scope = 'openid account:read account:write';
  const app = await makeClient(db, site, { audience: 'member', confidential: false, scopes: scope.split(' ') });
  const body = (await (await exchangeCode(await discover(site.origin), app, await issueCode(db, site, app, user, scope))).json()) as { access_token?: string };
  if (!body.access_token) throw new Error('no member token');
  return { token: body.access_token, clientRef: app.client.ref };
}

/** Code-point order of API then element (the stores' collations differ). */
const byElement = (a: UsageRow, b: UsageRow) => (a.api === b.api ? (a.element < b.element ? -1 : a.element > b.element ? 1 : 0) : a.api < b.api ? -1 : 1);

interface UsageRow {
  api: string;
  element: string;
  uses: number;
}

describeEachDatabase('usage counts: what a request uses, counted once per request and written by the flush', (scratch) => {
  let server: TestServer;
  let member: User;
  const db = () => scratch().db;

  before(async function () {
    this.timeout(60_000);
    server = await startTestServer(scratch());
    member = await makeUser(db(), server.siteA, ['student'], 'Counted Casey');
  });
  after(async () => server.stop());

  /** The stored counts of one client at site A, after writing this process's tally. */
  async function storedFor(clientRef: number, api?: string): Promise<UsageRow[]> {
    await flushUses(db());
    const query = db()('api_usage').where({ site_id: server.siteA.id, client_ref: clientRef }).select('api', 'element', 'uses').orderBy(['api', 'element']);
    if (api !== undefined) query.andWhere({ api });
    const rows = ((await query) as UsageRow[]).map((row) => ({ api: row.api, element: row.element, uses: Number(row.uses) }));
    return rows.sort(byElement);
  }

  async function post(token: string | null, body: Record<string, unknown>): Promise<{ status: number; json: { data?: unknown; errors?: unknown[] } }> {
    const response = await fetch(`${server.siteA.origin}${graphqlPath('A')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as { data?: unknown; errors?: unknown[] } };
  }

  const DOCUMENT = `
    query Mine($filter: MeetingFilter, $first: Int) {
      viewer {
        ...Who
        __typename
        consultingMeetings(first: $first, filter: $filter) { nodes { id } }
        alsoMeetings: consultingMeetings(filter: { state: [scheduled] }) { pageInfo { hasNextPage } }
      }
    }
    fragment Who on Viewer { id name }
    query Other { viewer { email } }
  `;
  const IN_DOCUMENT = [
    'ConsultingMeeting.id',
    'ConsultingMeetingConnection.nodes',
    'ConsultingMeetingConnection.pageInfo',
    'MeetingFilter.state',
    'MeetingState.scheduled',
    'PageInfo.hasNextPage',
    'Query.viewer',
    'Viewer.consultingMeetings',
    'Viewer.consultingMeetings(filter:)',
    'Viewer.consultingMeetings(first:)',
    'Viewer.id',
    'Viewer.name',
  ];

  it('member API: the fields, arguments, input fields and enum values of the operation that ran, with its fragments and variables, once each per request', async () => {
    const { token, clientRef } = await memberClient(db(), server.siteA, member);
    const variables = { first: 5, filter: { startedAfter: 0, state: ['available', 'canceled'] } };
    for (let i = 0; i < 3; i += 1) {
      const { status, json } = await post(token, { query: DOCUMENT, operationName: 'Mine', variables });
      expect(status, JSON.stringify(json)).to.equal(200);
      expect(json.errors).to.equal(undefined);
    }
    // The same operation with no variables: only the document's coordinates.
    expect((await post(token, { query: DOCUMENT, operationName: 'Mine' })).status).to.equal(200);
    const fromVariables = ['MeetingFilter.startedAfter', 'MeetingState.available', 'MeetingState.canceled'];
    const expected = [...IN_DOCUMENT.map((element) => ({ api: 'graphql', element, uses: 4 })), ...fromVariables.map((element) => ({ api: 'graphql', element, uses: 3 }))];
    const stored = await storedFor(clientRef);
    expect(stored).to.deep.equal(expected.sort(byElement));
    // Not the other operation's field, and never introspection.
    expect(stored.map((row) => row.element)).not.to.include.members(['Viewer.email', 'Viewer.__typename']);
  });

  it('member API: a registered document sent by its id counts the same coordinates as its text', async () => {
    const { token, clientRef } = await memberClient(db(), server.siteA, member);
    const document = 'query Names { viewer { id name } }';
    const documentId = `sha256:${createHash('sha256').update(document, 'utf8').digest('hex')}`;
    await insertTrustedDocuments(db(), server.siteA.id, clientRef, [{ documentId, document, operationNames: ['Names'] }], new Date());
    expect((await post(token, { documentId })).status).to.equal(200);
    expect((await post(token, { query: document })).status).to.equal(200);
    expect(await storedFor(clientRef)).to.deep.equal(['Query.viewer', 'Viewer.id', 'Viewer.name'].map((element) => ({ api: 'graphql', element, uses: 2 })));
  });

  it('member API: a request refused before it ran (a document that does not validate, variables that do not fit) counts nothing', async () => {
    const { token, clientRef } = await memberClient(db(), server.siteA, member);
    expect((await post(token, { query: '{ viewer { id nope } }' })).status).to.equal(400);
    const badVariables = await post(token, { query: DOCUMENT, operationName: 'Mine', variables: { first: 'many' } });
    expect(badVariables.json.errors).to.have.length.greaterThan(0);
    expect(await storedFor(clientRef)).to.deep.equal([]);
  });

  it('a request writes nothing: its counts wait in memory until the flush', async () => {
    const { token, clientRef } = await memberClient(db(), server.siteA, member);
    await post(token, { query: '{ viewer { id } }' });
    await flushUses(db());
    let status = 0;
    const writes = await writesOf(db(), async () => {
      status = (await post(token, { query: '{ viewer { id name } }' })).status;
    });
    expect(status).to.equal(200);
    expect(writes).to.deep.equal([]);
    expect(pendingUses(db())).to.be.at.least(1);
    expect(await storedFor(clientRef)).to.deep.equal([
      { api: 'graphql', element: 'Query.viewer', uses: 2 },
      { api: 'graphql', element: 'Viewer.id', uses: 2 },
      { api: 'graphql', element: 'Viewer.name', uses: 1 },
    ]);
  });

  it('admin API: each operation an authenticated client called, by operationId; refused calls are not counted', async () => {
    const issued = await issueToken(db(), server.siteA, { scopes: ['school:read', 'courses:read'] });
    const api = await AdminApi.connect(server.siteA.origin, issued.token);
    expect((await api.call('getSchool')).status).to.equal(200);
    expect((await api.call('getSchool')).status).to.equal(200);
    expect((await api.call('listCourses')).status).to.equal(200);
    // Refused: a query parameter out of the contract, and a scope the token lacks.
    expect((await api.call('listCourses', { query: { limit: 'lots' } })).status).to.equal(400);
    expect((await api.call('listOrders')).status).to.equal(403);
    expect(await storedFor(issued.app.client.ref, 'admin')).to.deep.equal([
      { api: 'admin', element: 'getSchool', uses: 2 },
      { api: 'admin', element: 'listCourses', uses: 1 },
    ]);
  });

  async function callTool(token: string | null, name: string, meta?: Record<string, unknown>): Promise<{ status: number; body: { result?: { isError?: boolean }; error?: unknown } }> {
    const params: Record<string, unknown> = { name, arguments: {} };
    if (meta) params._meta = meta;
    const response = await fetch(`${server.siteA.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    });
    const text = await response.text();
    // The SDK may answer as an event stream: the JSON is on its data line.
    const json = text.startsWith('{') ? text : (text.split('\n').find((line) => line.startsWith('data: ')) ?? 'data: {}').slice(6);
    return { status: response.status, body: JSON.parse(json) as { result?: { isError?: boolean }; error?: unknown } };
  }

  it('MCP: each tool called, anonymous callers under client 0, token holders under their client, through the direct answers and the SDK alike', async () => {
    const anonymousBefore = (await storedFor(0, 'mcp')).find((row) => row.element === 'get_school_profile')?.uses ?? 0;
    // Plain requests are answered directly; one with a progress token goes through the SDK.
    expect((await callTool(null, 'get_school_profile')).status).to.equal(200);
    expect((await callTool(null, 'get_school_profile', { progressToken: 'p1' })).status).to.equal(200);
    // Unknown tools are protocol errors: nothing ran.
    expect((await callTool(null, 'no_such_tool')).body.error).not.to.equal(undefined);
    const anonymous = await storedFor(0, 'mcp');
    expect(anonymous.find((row) => row.element === 'get_school_profile')?.uses).to.equal(anonymousBefore + 2);
    expect(anonymous.map((row) => row.element)).not.to.include('no_such_tool');

    const { token, clientRef } = await memberClient(db(), server.siteA, member);
    const direct = await callTool(token, 'list_my_courses');
    expect(direct.status).to.equal(200);
    expect(direct.body.result?.isError).not.to.equal(true);
    expect((await callTool(token, 'list_my_courses', { progressToken: 'p2' })).status).to.equal(200);
    expect((await callTool(token, 'get_school_profile')).status).to.equal(200);
    expect(await storedFor(clientRef, 'mcp')).to.deep.equal([
      { api: 'mcp', element: 'get_school_profile', uses: 1 },
      { api: 'mcp', element: 'list_my_courses', uses: 2 },
    ]);
  });
});

describeEachDatabase('usage counts: the prune keeps the retention and drops deleted clients’ counts', (scratch) => {
  let server: TestServer;
  const db = () => scratch().db;
  const DAY = 24 * 60 * 60 * 1000;
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

  before(async function () {
    this.timeout(60_000);
    server = await startTestServer(scratch());
  });
  after(async () => server.stop());

  it('deletes the days before the retention and the rows of clients that no longer exist, keeping anonymous counts', async () => {
    const kept = await makeClient(db(), server.siteB, { audience: 'member', confidential: false, scopes: ['account:read'] });
    const gone = await makeClient(db(), server.siteB, { audience: 'member', confidential: false, scopes: ['account:read'] });
    const row = (clientRef: number, daysAgo: number, element: string) => ({ site_id: server.siteB.id, day: day(daysAgo), api: 'mcp', element, client_ref: clientRef, uses: 2, last_used_at: new Date() });
    await db()('api_usage').insert([
      row(kept.client.ref, 0, 'today'),
      row(kept.client.ref, 4, 'within'),
      row(kept.client.ref, 5, 'past'),
      row(0, 4, 'anonymous-within'),
      row(0, 5, 'anonymous-past'),
      row(gone.client.ref, 1, 'of-a-deleted-client'),
    ]);
    await db()('oauth_clients').where({ id: gone.client.ref }).delete();
    const report = await prune(db(), { usageRetentionDays: 5 });
    expect(report.deleted.api_usage).to.equal(3);
    const left = (await db()('api_usage').where({ site_id: server.siteB.id }).orderBy('element').pluck('element')) as string[];
    expect(left).to.deep.equal(['anonymous-within', 'today', 'within']);
    expect((await prune(db(), { usageRetentionDays: 5 })).deleted.api_usage).to.equal(0);
  });

  it('refuses a usage retention outside 1 to 3650 days at start', async () => {
    const { loadConfig } = await import('../src/config/config.js');
    expect(loadConfig({}).usageRetentionDays).to.equal(90);
    expect(loadConfig({ SCHOOLGATE_USAGE_RETENTION_DAYS: '400' }).usageRetentionDays).to.equal(400);
    for (const bad of ['0', '3651', 'ninety', '-1']) expect(() => loadConfig({ SCHOOLGATE_USAGE_RETENTION_DAYS: bad }), bad).to.throw(/SCHOOLGATE_USAGE_RETENTION_DAYS/);
  });
});
