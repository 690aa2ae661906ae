/**
 * Usage counts exact across instances (docs/usage.md, "Exact across instances"): instance A on node 1 and instance B
 * on node 2 serve one site; each gets the same member API requests, admin API calls and anonymous MCP tool calls, N of
 * each, while both flush their tallies every second (so their additive upserts race on two Galera nodes); after both
 * stop (each writes what it still holds), node 3 holds exactly 2 × N uses of every element the requests used, no more.
 *
 * Settings (environment): CLUSTER_USAGE_REQUESTS (N per instance and kind, default 120).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Database } from '../../src/db/connection.js';
import { createSite, type Site } from '../../src/sites/sites.js';
import { variantProfile } from '../../src/variant.js';
import { issueCode, makeClient, makeUser, REDIRECT_URI, type TestClient } from '../support/oauth-fixtures.js';
import { acquireCluster, createDatabase, dropDatabase, knexOnNode, nodeUrl, onNode, releaseCluster, scratchDatabaseName, type ClusterLease } from './support/galera.js';
import { postFormAt, runCleanUp, SITE_ORIGIN, siteFetch, startInstance, type CleanUpStep, type Instance } from './support/instances.js';

const say = (line: string) => process.stdout.write(`      ${line}\n`);
const REQUESTS = Number(process.env.CLUSTER_USAGE_REQUESTS ?? 120);
/** Requests in flight per instance at once. */
const CONCURRENCY = 6;

const QUERY = 'query Mine($first: Int) { viewer { ...Who enrolledCourses(first: $first) { nodes { title } } } } fragment Who on Viewer { id name }';
const GRAPHQL_ELEMENTS = ['Course.title', 'CourseConnection.nodes', 'Query.viewer', 'Viewer.enrolledCourses', 'Viewer.enrolledCourses(first:)', 'Viewer.id', 'Viewer.name'];

describe('usage counts on a Galera cluster: two instances on two nodes, flushes racing', function () {
  this.timeout(600_000);
  let lease: ClusterLease | undefined;
  let databaseName: string | undefined;
  let logDir: string;
  let db: Database | undefined;
  let site: Site;
  let a: Instance | undefined;
  let b: Instance | undefined;
  let member: TestClient;
  let operator: TestClient;

  before(async function () {
    this.timeout(400_000);
    lease = await acquireCluster(say);
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-usage-cluster-'));
    say(`server logs: ${logDir}`);
    databaseName = scratchDatabaseName('usage');
    await createDatabase(databaseName);
    // Flushing every second makes the two instances' additive upserts meet on the same rows, on two nodes.
    const env = { SCHOOLGATE_VARIANT: 'A', SCHOOLGATE_USAGE_FLUSH_INTERVAL_SECONDS: '1' };
    a = await startInstance('instanceA', nodeUrl(1, databaseName), logDir, env);
    b = await startInstance('instanceB', nodeUrl(2, databaseName), logDir, env);
    say(`instance A ${a.url} on node 1, instance B ${b.url} on node 2, database ${databaseName}`);
    db = knexOnNode(1, databaseName);
    site = await createSite(db, { origin: SITE_ORIGIN, name: 'Usage Cluster School', subdomain: 'usagecluster' });
    member = await makeClient(db, site, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'], name: 'Member App' });
    operator = await makeClient(db, site, { audience: 'operator', confidential: false, scopes: ['openid', 'school:read'], name: 'Operator App' });
  });

  after(async function () {
    this.timeout(400_000);
    const steps: CleanUpStep[] = [
      ['stop instance A', async () => a?.stop()],
      ['stop instance B', async () => b?.stop()],
      ['close the pool', async () => db?.destroy()],
      ['drop the database', async () => {
        if (databaseName) await dropDatabase(databaseName);
      }],
      ['release the cluster', async () => releaseCluster(lease, say)],
    ];
    await runCleanUp(steps, [a, b], say, 800);
  });

  /** An access token of `client` for a new user holding `roles`, exchanged at instance A. */
  async function tokenOf(client: TestClient, roles: Parameters<typeof makeUser>[2], scope: string): Promise<string> {
    if (!db || !a) throw new Error('the set-up did not run');
    const user = await makeUser(db, site, roles, 'Usage Person');
    const grant = await issueCode(db, site, client, user, scope);
    const answer = await postFormAt(a, '/api/oauth/token', { grant_type: 'authorization_code', code: grant.code, redirect_uri: REDIRECT_URI, client_id: client.client.clientId, code_verifier: grant.verifier, resource: SITE_ORIGIN });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return (answer.body as { access_token: string }).access_token;
  }

  /** `count` calls of `send` at once, CONCURRENCY at a time; every answer must be a 200. */
  async function load(count: number, send: () => Promise<Response>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next += 1;
        const response = await send();
        const text = await response.text();
        expect(response.status, text.slice(0, 300)).to.equal(200);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }

  it(`${REQUESTS} member API queries, admin calls and anonymous MCP tool calls through each instance: node 3 counts exactly ${2 * REQUESTS} of each element`, async () => {
    if (!a || !b || !databaseName) throw new Error('the set-up did not run');
    const memberToken = await tokenOf(member, ['student'], 'openid account:read');
    const operatorToken = await tokenOf(operator, ['operator'], 'openid school:read');
    const graphqlPath = variantProfile('A').memberGraphql.path;
    const started = Date.now();
    await Promise.all(
      [a, b].map(async (instance) => {
        await load(REQUESTS, () =>
          siteFetch(instance, graphqlPath, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${memberToken}` },
            body: JSON.stringify({ query: QUERY, operationName: 'Mine', variables: { first: 3 } }),
          }),
        );
        await load(REQUESTS, () => siteFetch(instance, '/api/admin/v1/school', { headers: { authorization: `Bearer ${operatorToken}` } }));
        await load(REQUESTS, () =>
          siteFetch(instance, '/mcp', {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_school_profile', arguments: {} } }),
          }),
        );
      }),
    );
    say(`${6 * REQUESTS} requests in ${Date.now() - started} ms; stopping both instances (each writes what it still holds)`);
    await Promise.all([a.stop(), b.stop()]);

    const rows = await onNode<{ api: string; element: string; client_ref: number; uses: number | string }>(
      3,
      'SELECT api, element, client_ref, uses FROM api_usage WHERE site_id = ? ORDER BY api, element',
      [site.id],
      databaseName,
    );
    say(`node 3: ${rows.map((row) => `${row.element} ${Number(row.uses)}`).join(', ')}`);
    const expected = [
      { api: 'admin', element: 'getSchool', client_ref: operator.client.ref, uses: 2 * REQUESTS },
      ...GRAPHQL_ELEMENTS.map((element) => ({ api: 'graphql', element, client_ref: member.client.ref, uses: 2 * REQUESTS })),
      { api: 'mcp', element: 'get_school_profile', client_ref: 0, uses: 2 * REQUESTS },
    ];
    const byKey = (row: { api: string; element: string }) => `${row.api} ${row.element}`;
    const stored = rows.map((row) => ({ api: row.api, element: row.element, client_ref: Number(row.client_ref), uses: Number(row.uses) })).sort((x, y) => (byKey(x) < byKey(y) ? -1 : 1));
    expect(stored).to.deep.equal(expected.sort((x, y) => (byKey(x) < byKey(y) ? -1 : 1)));
  });
});
