import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { grantRole } from '../src/accounts/roles.js';
import type { User } from '../src/accounts/users.js';
import { createApp } from '../src/app.js';
import type { Variant } from '../src/config/config.js';
import { openDatabase, type Database } from '../src/db/connection.js';
import { insertPair, newGrantId } from '../src/oauth/tokens/store.js';
import { startServer } from '../src/server.js';
import { createServices } from '../src/services.js';
import { createLogger } from '../src/shared/logger.js';
import { createSite, type Site } from '../src/sites/sites.js';
import { describeEachDatabase, type ScratchDatabase } from './support/databases.js';
import { connect, rawInitialize, toolNames, useMcpSchool, type McpSchool } from './support/mcp-school.js';
import { memberToken } from './support/member-api.js';
import { makeClient } from './support/oauth-fixtures.js';
import { testConfig } from './support/server.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { variantProfile } from '../src/variant.js';

async function expectUnavailable(origin: string, token: string | undefined): Promise<void> {
  const response = await rawInitialize(origin, token === undefined ? {} : { authorization: `Bearer ${token}` });
  expect(response.status).to.equal(503);
  expect(response.headers.get('www-authenticate'), 'no WWW-Authenticate, so clients keep their tokens').to.equal(null);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  const body = (await response.json()) as { error: string };
  expect(body.error).to.equal('temporarily_unavailable');
}

/**
 * An anonymous caller while the store is down: no token needs a verdict, so what fails is the first read of the store.
 * That is the site lookup (503) unless the process already knows the school, and then the tool's own read (the tool
 * error temporarily_unavailable).
 */
async function expectAnonymousUnavailable(origin: string): Promise<void> {
  const response = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_courses', arguments: {} } }),
  });
  if (response.status === 503) {
    expect(((await response.json()) as { error: string }).error).to.equal('temporarily_unavailable');
    return;
  }
  expect(response.status).to.equal(200);
  const answer = (await response.json()) as { result: { isError?: boolean; content: Array<{ text: string }> } };
  expect(answer.result.isError).to.equal(true);
  expect((JSON.parse(answer.result.content[0]?.text ?? '{}') as { error?: string }).error).to.equal('temporarily_unavailable');
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** While the store did not answer, the process probes it every 250 ms and sheds requests until a probe succeeds. */
const RECOVERY_MS = 1000;

/** Knex's connection warnings are the expected symptom of the faults here. */
const quiet = (): void => undefined;

/** A school at the origin of a second server instance, where Mia is a student. */
async function faultSite(db: Database, origin: string, mia: User): Promise<Site> {
  const site = await createSite(db, { origin, name: `Fault School ${new URL(origin).port}` });
  await grantRole(db, site.id, mia.id, 'student');
  return site;
}

/**
 * A second server instance that reaches MySQL through a TCP proxy the test controls, with Mia's member token for a
 * school at its origin (checked to work before `fault` runs); everything is stopped afterwards.
 */
async function withProxiedServer(variant: Variant, scratch: () => ScratchDatabase, school: McpSchool, fault: (instance: { origin: string; token: string; proxy: TcpProxy }) => Promise<void>): Promise<void> {
  const config = scratch().config;
  if (config.client !== 'mysql') throw new Error('expected a MySQL scratch database');
  const proxy = new TcpProxy({ host: config.host, port: config.port });
  await proxy.listen();
  const proxied = { ...config, host: '127.0.0.1', port: proxy.port };
  const proxiedDb = openDatabase(proxied, quiet);
  const running = await startServer(testConfig({ variant, database: proxied }), { db: proxiedDb, logger: createLogger('silent') });
  try {
    const origin = `http://localhost:${new URL(running.listeningOn).port}`;
    const token = await memberToken(school.db, await faultSite(school.db, origin, school.mia), school.mia, 'openid account:read');
    expect(await toolNames(origin, token)).to.include('list_my_courses');
    await fault({ origin, token, proxy });
  } finally {
    await running.stop(1000);
    await proxiedDb.destroy();
    await proxy.close();
  }
}

/**
 * /mcp when no verdict on a token can be reached: real faults of the store the server under test talks to (refused
 * connections, timeouts, a held lock) answer 503 temporarily_unavailable without WWW-Authenticate, so clients keep
 * their tokens, and the same token works once the store is back.
 */
for (const variant of ['A', 'B'] as const) {
  describeEachDatabase(`MCP endpoint /mcp, variant ${variant}`, (scratch) => storeFaultsSuite(variant, scratch));
}

function storeFaultsSuite(variant: Variant, scratch: () => ScratchDatabase): void {
  const school = useMcpSchool(variant, scratch);

  describe('when no verdict on the token can be reached', () => {
    it('answers 503 temporarily_unavailable without WWW-Authenticate while the store refuses connections, and serves again once it is back', async function () {
      this.timeout(60_000);
      if (scratch().kind === 'mysql') {
        // MySQL: the server under test reaches the database through a TCP proxy; the proxy is shut (connection refused).
        await withProxiedServer(variant, scratch, school, async ({ origin: faultOrigin, token, proxy }) => {
          await proxy.refuse();
          // First on the pooled connections the proxy cut (EPIPE / connection lost), then on new ones (refused).
          await expectUnavailable(faultOrigin, token);
          await delay(200);
          await expectUnavailable(faultOrigin, token);
          await expectAnonymousUnavailable(faultOrigin);
          const failure = await connect(faultOrigin, token).then(
            async (client) => {
              await client.close();
              return null;
            },
            (error: unknown) => error,
          );
          expect((failure as StreamableHTTPError).code, 'the SDK client sees the 503').to.equal(503);
          await proxy.forward();
          await delay(RECOVERY_MS);
          expect(await toolNames(faultOrigin, token), 'the same token works once the store is back').to.include('list_my_courses');
        });
      } else {
        // SQLite: a server instance whose pool opens the database file after the file was replaced by a directory
        // (the file is unreachable: SQLITE_CANTOPEN); putting the file back brings it up without a restart.
        const config = scratch().config;
        if (config.client !== 'sqlite') throw new Error('expected an SQLite scratch database');
        const faultDb = openDatabase(config, quiet);
        const app = createApp(createServices(testConfig({ variant, database: config }), faultDb, createLogger('silent')));
        const httpServer = http.createServer(app.callback());
        await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
        const moved = `${config.filename}.moved`;
        let swapped = false;
        try {
          const faultOrigin = `http://localhost:${(httpServer.address() as AddressInfo).port}`;
          // The token is written to the store directly: issuing it through this instance would open its pool early.
          const site = await faultSite(school.db, faultOrigin, school.mia);
          const faultClient = await makeClient(school.db, site, { audience: 'member', confidential: false, scopes: ['account:read'] });
          const issued = await insertPair(school.db, { grantId: newGrantId(), siteId: site.id, clientRef: faultClient.client.ref, userId: school.mia.id, scopes: ['account:read'], resource: faultOrigin, schoolId: variantProfile(variant).schoolBoundMemberTokens ? site.id : null, authTime: new Date() });
          fs.renameSync(config.filename, moved);
          fs.mkdirSync(config.filename);
          swapped = true;
          await expectUnavailable(faultOrigin, issued.accessToken);
          await expectUnavailable(faultOrigin, undefined);
          fs.rmdirSync(config.filename);
          fs.renameSync(moved, config.filename);
          swapped = false;
          await delay(RECOVERY_MS);
          expect(await toolNames(faultOrigin, issued.accessToken), 'the same token works once the file is back').to.include('list_my_courses');
        } finally {
          if (swapped) {
            fs.rmdirSync(config.filename);
            fs.renameSync(moved, config.filename);
          }
          httpServer.closeAllConnections();
          await new Promise<void>((resolve) => httpServer.close(() => resolve()));
          await faultDb.destroy();
        }
      }
    });

    it('answers 503 temporarily_unavailable without WWW-Authenticate while the store times out, and serves again once it answers', async function () {
      this.timeout(60_000);
      if (scratch().kind === 'mysql') {
        // MySQL: the proxy accepts connections but never forwards a byte; the pool's acquire timeout fires, and then
        // the database health state sheds requests at once (docs/operations.md, "Database outages").
        await withProxiedServer(variant, scratch, school, async ({ origin: faultOrigin, token, proxy }) => {
          proxy.swallow();
          // Let the driver notice the cut connections, so the request needs a new one and waits for it in vain.
          await delay(200);
          const started = Date.now();
          await expectUnavailable(faultOrigin, token);
          expect(Date.now() - started, 'answered within the acquire timeout, not the old 5-10 s').to.be.below(3000);
          await proxy.forward();
          await delay(RECOVERY_MS);
          expect(await toolNames(faultOrigin, token)).to.include('list_my_courses');
        });
      } else {
        // SQLite: another connection holds the write lock longer than the server's busy_timeout. A fresh token's
        // first presentation must be recorded (it revokes a refreshed predecessor), so no verdict can be reached.
        const config = scratch().config;
        if (config.client !== 'sqlite') throw new Error('expected an SQLite scratch database');
        const fresh = await memberToken(school.db, school.server.siteA, school.mia, 'openid account:read');
        const locker = openDatabase(config, quiet);
        try {
          await locker.transaction(async (trx) => {
            await trx('sites').where({ id: school.server.siteA.id }).update({ version: trx.raw('version') });
            await expectUnavailable(school.origin, fresh);
          });
          expect(await toolNames(school.origin, fresh), 'the same token works once the lock is released').to.include('list_my_courses');
        } finally {
          await locker.destroy();
        }
      }
    });
  });
}
