/**
 * npm run bench: token-endpoint (refresh grant) and userinfo throughput, next to a bare Koa route on the same
 * machine, so the numbers say what the OAuth work costs rather than how fast this machine is. Loopback only,
 * bounded in time. Runs on the embedded SQLite store, or on MySQL with BENCH_DATABASE=mysql (a scratch database on SCHOOLGATE_TEST_MYSQL_URL's server).
 */
import { createScratchDatabase } from '../support/databases.js';
import { discover, exchangeCode, issueCode, makeClient, makeUser } from '../support/oauth-fixtures.js';
import { startTestServer } from '../support/server.js';
import { bareKoa, CONNECTIONS, run, type Row } from './harness.js';

export async function oauthBench(kind: 'sqlite' | 'mysql'): Promise<Row[]> {
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

  return rows;
}
