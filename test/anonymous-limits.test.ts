import { expect } from 'chai';
import { loadConfig } from '../src/config/config.js';
import { buildAuthorizationUrl, createPkcePair } from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { makeClient, REDIRECT_URI, type TestClient } from './support/oauth-fixtures.js';
import { startOfRoomyWindow, windowsSpanned } from './support/rate-windows.js';
import { startTestServer, type TestServer } from './support/server.js';

const ROW_TABLES = ['authorization_requests', 'sign_in_sessions', 'rate_limit_counters'] as const;

/** Sends `count` requests, `concurrency` at a time; returns each answer's status, and one answer of each status. */
async function flood(count: number, concurrency: number, send: () => Promise<Response>): Promise<{ statuses: Map<number, number>; samples: Map<number, { headers: Headers; body: string }> }> {
  const statuses = new Map<number, number>();
  const samples = new Map<number, { headers: Headers; body: string }>();
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent += 1;
      const response = await send();
      const body = await response.text();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (!samples.has(response.status)) samples.set(response.status, { headers: response.headers, body });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { statuses, samples };
}

/**
 * What anonymous traffic can make the server write (docs/oauth.md, "Limits on anonymous traffic"),
 * with the product's default limits: valid authorization requests from browsers that are not signed in are counted
 * per address, requests that fail validation write nothing, and failed token requests of a valid client are counted
 * per client at its address (test/rate-limits-per-client.test.ts has the address shared with other clients).
 */
describeEachDatabase('limits on anonymous traffic', (scratch) => {
  const defaults = loadConfig({}).anonymousLimits;
  let server: TestServer;
  let app: TestClient;

  before(async () => {
    server = await startTestServer(scratch(), { anonymousLimits: defaults });
    app = await makeClient(scratch().db, server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'profile'] });
  });
  after(() => server.stop());

  async function rowCounts(): Promise<Record<(typeof ROW_TABLES)[number], number>> {
    const counts = { authorization_requests: 0, sign_in_sessions: 0, rate_limit_counters: 0 };
    for (const table of ROW_TABLES) counts[table] = Number(((await scratch().db(table).count({ n: '*' })) as Array<{ n: number | string }>)[0]?.n ?? 0);
    return counts;
  }

  function authorizeUrl(extra: Record<string, string | null> = {}): URL {
    return buildAuthorizationUrl({ origin: server.siteA.origin, clientId: app.client.clientId, redirectUri: REDIRECT_URI, scope: 'openid profile', email: '', password: '', codeChallenge: createPkcePair().challenge, extraParameters: extra });
  }

  it('10,000 anonymous authorization requests: rows stay bounded by the limit, the rest get a 429 page with Retry-After', async function () {
    this.timeout(600_000);
    const before = await rowCounts();
    const started = Date.now();
    const { statuses, samples } = await flood(10_000, 16, () => fetch(authorizeUrl(), { redirect: 'manual' }));
    // Each minute window the run touched may show up to the limit (a busy machine takes more than a minute).
    const windows = windowsSpanned(60, started, Date.now());
    const after = await rowCounts();
    const shown = statuses.get(200) ?? 0;
    const limited = statuses.get(429) ?? 0;
    expect(shown + limited, JSON.stringify([...statuses])).to.equal(10_000);
    expect(shown).to.be.within(defaults.authorizePerMinute, windows * defaults.authorizePerMinute);
    // Each page shown wrote its request and a session (no cookie came back); nothing else wrote a request or session.
    expect(after.authorization_requests - before.authorization_requests).to.equal(shown);
    expect(after.sign_in_sessions - before.sign_in_sessions).to.equal(shown);
    // The counters: per address and per client, one row per window.
    expect(after.rate_limit_counters - before.rate_limit_counters).to.be.at.most(2 * windows);
    const refusal = samples.get(429);
    expect(refusal?.headers.get('content-type')).to.match(/^text\/html/);
    // Sliding windows: the wait until one more request fits may reach two windows.
    expect(Number(refusal?.headers.get('retry-after'))).to.be.within(1, 120);
    expect(refusal?.body).to.contain('Too many sign-in requests');
  });

  it('requests that fail validation write nothing at all, not even a count', async function () {
    this.timeout(300_000);
    const before = await rowCounts();
    const invalid = [
      () => authorizeUrl({ client_id: 'sg_no_such_client' }),
      () => authorizeUrl({ redirect_uri: 'https://attacker.example/callback' }),
      () => authorizeUrl({ code_challenge: null }),
      () => authorizeUrl({ resource: 'https://elsewhere.example' }),
      () => authorizeUrl({ response_type: 'token' }),
    ];
    let next = 0;
    const { statuses } = await flood(1_000, 8, () => fetch(invalid[next++ % invalid.length]!(), { redirect: 'manual' }));
    expect([...statuses.keys()].every((status) => status === 400 || status === 302), JSON.stringify([...statuses])).to.equal(true);
    expect(await rowCounts()).to.deep.equal(before);
  });

  // Last: the client stays refused at the token endpoint from this address until the count slides below the limit.
  it('failed token requests of a valid client are counted per client at its address: past the limit, 429 with Retry-After before any work', async function () {
    this.timeout(300_000);
    const tokenUrl = `${server.siteA.origin}/api/oauth/token`;
    const badCode = () =>
      fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: 'not-a-code', client_id: app.client.clientId, redirect_uri: REDIRECT_URI, code_verifier: 'x'.repeat(43), resource: server.siteA.origin }),
      });
    await startOfRoomyWindow(600, 60);
    const { statuses, samples } = await flood(defaults.failuresPerTenMinutes + 50, 1, badCode);
    expect(statuses.get(400), JSON.stringify([...statuses])).to.equal(defaults.failuresPerTenMinutes);
    expect(statuses.get(429)).to.equal(50);
    const refusal = samples.get(429);
    expect(JSON.parse(refusal?.body ?? '{}')).to.include({ error: 'temporarily_unavailable' });
    expect(Number(refusal?.headers.get('retry-after'))).to.be.within(1, 1200);
    // Refused before any work: no more counting once this instance knows the client is over the limit here.
    const counted = (await scratch().db('rate_limit_counters').where('bucket', 'like', 'token-failures:%').sum({ hits: 'hits' })) as Array<{ hits: number | string }>;
    expect(Number(counted[0]?.hits)).to.equal(defaults.failuresPerTenMinutes + 1);
  });
});
