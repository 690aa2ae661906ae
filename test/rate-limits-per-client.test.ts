import { expect } from 'chai';
import type * as oauth from 'oauth4webapi';
import type { User } from '../src/accounts/users.js';
import { describeEachDatabase } from './support/databases.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser, postForm, REDIRECT_URI, type TestClient } from './support/oauth-fixtures.js';
import { startOfRoomyWindow } from './support/rate-windows.js';
import { startTestServer, type TestServer } from './support/server.js';

/** Small enough to pass quickly; the product's default is 100 (docs/oauth.md, "Limits on anonymous traffic"). */
const LIMIT = 12;
const WINDOW_SECONDS = 600;

type Answer = Awaited<ReturnType<typeof postForm>>;

/**
 * Failure limits at the token endpoint count per client, and per address only without a valid client: the school
 * behind one address (every request here comes from the same loopback address), where one broken client fails over
 * and over while the others refresh their tokens.
 */
describeEachDatabase('failure limits per client at the token endpoint', (scratch) => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  let member: User;
  let healthy: TestClient;
  let healthyConfidential: TestClient;
  let broken: TestClient;
  let brokenConfidential: TestClient;
  const db = () => scratch().db;
  const tokenUrl = () => as.token_endpoint ?? '';

  before(async () => {
    server = await startTestServer(scratch(), { anonymousLimits: { authorizePerMinute: 1_000_000, failuresPerTenMinutes: LIMIT } });
    as = await discover(server.siteA.origin);
    member = await makeUser(db(), server.siteA, ['student'], 'Nat Member');
    const scopes = ['openid', 'profile', 'account:read'];
    healthy = await makeClient(db(), server.siteA, { audience: 'member', confidential: false, scopes, name: 'Healthy app' });
    healthyConfidential = await makeClient(db(), server.siteA, { audience: 'member', confidential: true, scopes, name: 'Healthy server app' });
    broken = await makeClient(db(), server.siteA, { audience: 'member', confidential: false, scopes, name: 'Broken app' });
    brokenConfidential = await makeClient(db(), server.siteA, { audience: 'member', confidential: true, scopes, name: 'Broken server app' });
  });
  after(() => server?.stop());

  async function refreshTokenOf(client: TestClient): Promise<string> {
    const grant = await issueCode(db(), server.siteA, client, member, 'openid profile account:read');
    const answer = await exchangeCode(as, client, grant);
    expect(answer.status).to.equal(200);
    return ((await answer.json()) as { refresh_token: string }).refresh_token;
  }

  function credentials(client: TestClient, secret = client.secret): Record<string, string> {
    return secret === null ? { client_id: client.client.clientId } : { client_id: client.client.clientId, client_secret: secret };
  }

  /** A client that refreshes with the token it got last time, as a well-behaved client does. */
  async function refresher(client: TestClient): Promise<() => Promise<Answer>> {
    let token = await refreshTokenOf(client);
    return async () => {
      const answer = await postForm(tokenUrl(), { grant_type: 'refresh_token', refresh_token: token, ...credentials(client) });
      if (typeof answer.body.refresh_token === 'string') token = answer.body.refresh_token;
      return answer;
    };
  }

  function expectRefusal(answer: Answer): void {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(429);
    expect(answer.body).to.include({ error: 'temporarily_unavailable' });
    expect(answer.body.error_description).to.be.a('string');
    expect(Number(answer.headers.get('retry-after'))).to.be.within(1, 2 * WINDOW_SECONDS);
    expect(answer.headers.get('cache-control')).to.match(/no-store/);
  }

  const statusCounts = (answers: Answer[]) => answers.reduce<Record<number, number>>((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

  async function counterRows(prefix: string): Promise<Array<{ bucket: string; hits: number }>> {
    const rows = (await db()('rate_limit_counters').where('bucket', 'like', `${prefix}%`).select('bucket', 'hits')) as Array<{ bucket: string; hits: number | string }>;
    return rows.map((row) => ({ bucket: row.bucket, hits: Number(row.hits) }));
  }

  it('one address, one broken client failing past the limit, two healthy clients refreshing throughout: the healthy ones are never refused', async function () {
    this.timeout(300_000);
    await startOfRoomyWindow(WINDOW_SECONDS, 120);
    const refreshHealthy = await refresher(healthy);
    const refreshHealthyConfidential = await refresher(healthyConfidential);
    const refreshBroken = await refresher(broken);
    const failures = [
      () => postForm(tokenUrl(), { grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token', client_id: broken.client.clientId }),
      () => postForm(tokenUrl(), { grant_type: 'authorization_code', code: 'not-a-code', client_id: broken.client.clientId, redirect_uri: REDIRECT_URI, code_verifier: 'x'.repeat(43), resource: server.siteA.origin }),
    ];
    const brokenAnswers: Answer[] = [];
    const healthyAnswers: Answer[] = [];
    for (let round = 0; round < 3 * LIMIT; round += 1) {
      brokenAnswers.push(await failures[round % failures.length]!());
      healthyAnswers.push(await refreshHealthy(), await refreshHealthyConfidential());
    }
    expect(statusCounts(healthyAnswers)).to.deep.equal({ 200: 6 * LIMIT });
    expect(brokenAnswers.slice(0, LIMIT).map((answer) => answer.body.error)).to.deep.equal(Array(LIMIT).fill('invalid_grant'));
    expect(statusCounts(brokenAnswers.slice(LIMIT))).to.deep.equal({ 429: 2 * LIMIT });
    expectRefusal(brokenAnswers.at(-1)!);
    // The failing client's own failures limit it, its valid refreshes included, at this address.
    expectRefusal(await refreshBroken());
    // Counted against the broken client alone: nothing against the address.
    const rows = await counterRows('token-failures:');
    expect(rows.every((row) => row.bucket.startsWith(`token-failures:client:${broken.client.ref}:`)), JSON.stringify(rows)).to.equal(true);
    // Counted up to the first refusal; then refused before any work, without counting.
    expect(rows.reduce((sum, row) => sum + row.hits, 0)).to.equal(LIMIT + 1);
  });

  it('requests without a valid client (a wrong secret, an unknown client_id) are counted per address; past the limit only they are refused', async function () {
    this.timeout(300_000);
    await startOfRoomyWindow(WINDOW_SECONDS, 120);
    const refreshHealthy = await refresher(healthy);
    const refreshHealthyConfidential = await refresher(healthyConfidential);
    const refreshBrokenWithItsSecret = await refresher(brokenConfidential);
    const wrongSecret = () => postForm(tokenUrl(), { grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token', ...credentials(brokenConfidential, 'not-the-secret') });
    const unknownClient = () => postForm(tokenUrl(), { grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token', client_id: 'sg_no_such_client' });
    const failing: Answer[] = [];
    const healthyAnswers: Answer[] = [];
    for (let round = 0; round < 2 * LIMIT; round += 1) {
      failing.push(await (round % 2 === 0 ? wrongSecret : unknownClient)());
      healthyAnswers.push(await refreshHealthy(), await refreshHealthyConfidential());
    }
    expect(failing.slice(0, LIMIT).map((answer) => answer.body.error)).to.deep.equal(Array(LIMIT).fill('invalid_client'));
    expect(statusCounts(failing.slice(LIMIT))).to.deep.equal({ 429: LIMIT });
    expectRefusal(await unknownClient());
    expectRefusal(await wrongSecret());
    // Every valid client from the same address is served: the healthy ones, and the broken one once it sends its secret.
    expect(statusCounts(healthyAnswers)).to.deep.equal({ 200: 4 * LIMIT });
    expect((await refreshBrokenWithItsSecret()).status).to.equal(200);
    const rows = await counterRows('token-failures:');
    expect(rows.filter((row) => row.bucket.startsWith('token-failures:address:')), JSON.stringify(rows)).to.have.length(1);
  });

  it('a window boundary does not reset the count: the previous window still weighs', async function () {
    // Up to 150 s of waiting for the next window, then the requests: the same budget as the tests above.
    this.timeout(300_000);
    // At least 150 s before the window ends, so the previous window still weighs at least a quarter.
    await startOfRoomyWindow(WINDOW_SECONDS, 150);
    const another = await makeClient(db(), server.siteA, { audience: 'member', confidential: false, scopes: ['openid'], name: 'Boundary app' });
    const fail = () => postForm(tokenUrl(), { grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token', client_id: another.client.clientId });
    expect((await fail()).status).to.equal(400);
    const [counted] = await counterRows(`token-failures:client:${another.client.ref}:`);
    const windowStart = Math.floor(Date.now() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000;
    // The previous window holds four times the limit (failures counted on several instances before each noticed).
    await db()('rate_limit_counters').insert({
      bucket: counted!.bucket,
      window_start: new Date(windowStart - WINDOW_SECONDS * 1000),
      hits: 4 * LIMIT,
      expires_at: new Date(windowStart + WINDOW_SECONDS * 1000),
    });
    // 2 + 4 × LIMIT × (at least 1/4) exceeds LIMIT at once; a fixed window would allow LIMIT - 1 more.
    const answers = [await fail(), await fail()];
    expect(answers.map((answer) => answer.status)).to.deep.equal([429, 429]);
    expectRefusal(answers[0]!);
  });
});
