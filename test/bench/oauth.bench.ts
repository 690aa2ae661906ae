/**
 * npm run bench: token-endpoint (refresh grant) and userinfo throughput, next to a bare Koa route on the same
 * machine, so the numbers say what the OAuth work costs rather than how fast this machine is. Loopback only,
 * bounded in time. Runs on the embedded SQLite store, or on MySQL with BENCH_DATABASE=mysql (a scratch database on SCHOOLGATE_TEST_MYSQL_URL's server).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import Koa from 'koa';
import { createScratchDatabase } from '../support/databases.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser } from '../support/oauth-fixtures.js';
import { startTestServer } from '../support/server.js';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

interface Row {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function run(name: string, options: autocannon.Options): Promise<Row> {
  const result = await autocannon({ duration: DURATION_SECONDS, connections: CONNECTIONS, ...options });
  return { name, requestsPerSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

async function bareKoa(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function main(): Promise<void> {
  const kind = process.env.BENCH_DATABASE === 'mysql' ? 'mysql' : 'sqlite';
  const scratch = await createScratchDatabase(kind);
  const server = await startTestServer(scratch);
  const site = server.siteB;
  const as = await discover(site.origin);
  const member = await makeUser(scratch.db, site, ['student']);
  const app = await makeClient(scratch.db, site, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'email', 'account:read'] });

  // One pair per connection: each connection retries its own (old) refresh token, which the rotation rules allow
  // while the successor is unused, so every request does the full refresh work.
  const pairs: Array<{ access: string; refresh: string }> = [];
  for (let index = 0; index < CONNECTIONS; index += 1) {
    const grant = await issueCode(scratch.db, site, app, member, 'openid profile email account:read');
    const body = (await (await exchangeCode(as, app, grant)).json()) as { access_token: string; refresh_token: string };
    pairs.push({ access: body.access_token, refresh: body.refresh_token });
  }
  let nextPair = 0;
  const bare = await bareKoa();
  const rows: Row[] = [];
  rows.push(await run('bare Koa route (GET /)', { url: bare.url }));
  rows.push(await run('userinfo (GET /api/oauth/userinfo)', { url: `${site.origin}/api/oauth/userinfo`, headers: { authorization: `Bearer ${pairs[0]?.access ?? ''}` } }));
  rows.push(
    await run('token endpoint (refresh_token grant)', {
      url: String(as.token_endpoint),
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      setupClient: (client) => {
        const pair = pairs[nextPair++ % pairs.length];
        client.setBody(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: pair?.refresh ?? '', client_id: app.client.clientId }).toString());
      },
    }),
  );
  await bare.close();
  await server.stop();
  await scratch.drop();

  const baseline = rows[0]?.requestsPerSecond ?? 1;
  process.stdout.write(`\nschoolgate OAuth bench: ${kind}, ${CONNECTIONS} connections, ${DURATION_SECONDS}s each, Node ${process.version}\n\n`);
  process.stdout.write('| endpoint | req/s | % of bare Koa | p50 ms | p99 ms | non-2xx |\n| --- | ---: | ---: | ---: | ---: | ---: |\n');
  for (const row of rows) {
    process.stdout.write(`| ${row.name} | ${row.requestsPerSecond} | ${((row.requestsPerSecond / baseline) * 100).toFixed(1)}% | ${row.p50} | ${row.p99} | ${row.non2xx} |\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
