import { expect } from 'chai';
import { openDatabase } from '../src/db/connection.js';
import { withTransaction } from '../src/db/transaction.js';
import { insertPair, newGrantId } from '../src/oauth/tokens/store.js';
import { TransactionConflictError } from '../src/shared/errors.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { makeClient, makeUser } from './support/oauth-fixtures.js';
import { testConfig } from './support/server.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createLogger } from '../src/shared/logger.js';
import { createSite, type Site } from '../src/sites/sites.js';
import type { Database } from '../src/db/connection.js';
import { variantProfile } from '../src/variant.js';

const describeSqlite = TEST_DATABASE_KINDS.includes('sqlite') ? describe : describe.skip;

describeSqlite('fail fast on a busy SQLite database [sqlite]', function () {
  this.timeout(120_000);
  let scratch: ScratchDatabase;
  let db: Database;
  let running: RunningServer;
  let site: Site;

  // A server on a pool of its own with the production timeouts (the tests' scratch pool waits longer).
  before(async () => {
    scratch = await createScratchDatabase('sqlite');
    db = openDatabase(scratch.config);
    running = await startServer(testConfig({ variant: 'A', database: scratch.config }), { db, logger: createLogger('silent') });
    const port = new URL(running.listeningOn).port;
    site = await createSite(scratch.db, { origin: `http://localhost:${port}`, name: `Busy School ${port}`, subdomain: `busy-${port}` });
  });

  after(async () => {
    await running?.stop(1000);
    await db?.destroy();
    await scratch?.drop();
  });

  it('stops running a transaction that keeps losing once its time budget is spent, not after every attempt', async () => {
    let runs = 0;
    const started = performance.now();
    const failure = await withTransaction(
      scratch.db,
      async () => {
        runs += 1;
        await new Promise((resolve) => setTimeout(resolve, 150));
        throw Object.assign(new Error('Lock wait timeout exceeded; try restarting transaction'), { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 });
      },
      { budgetMs: 400 },
    ).catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(TransactionConflictError);
    expect(runs, 'eight attempts allowed, the budget stops it first').to.be.within(1, 3);
    expect(performance.now() - started).to.be.below(2000);
  });

  it('answers 503 with Retry-After to writes while another process holds the write lock, within the bound, and serves once it is released', async () => {
    const member = await makeUser(scratch.db, site, ['student'], 'Busy Member');
    const app = await makeClient(scratch.db, site, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'] });
    const pairs = await Promise.all(
      Array.from({ length: 6 }, () =>
        insertPair(scratch.db, { grantId: newGrantId(), siteId: site.id, clientRef: app.client.ref, userId: member.id, scopes: ['openid', 'account:read'], resource: site.origin, schoolId: variantProfile('A').schoolBoundMemberTokens ? site.id : null, authTime: new Date() }),
      ),
    );
    const refresh = (token: string) =>
      fetch(`${site.origin}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: app.client.clientId }),
      });
    // Another connection (as the CLI would be, in another process) holds the write lock.
    const locker = openDatabase(scratch.config);
    const connection = (await locker.client.acquireConnection()) as { exec(sql: string): void };
    connection.exec('BEGIN IMMEDIATE');
    let answers: Array<{ status: number; retryAfter: string | null; ms: number }>;
    try {
      answers = await Promise.all(
        pairs.map(async (pair) => {
          const started = performance.now();
          const response = await refresh(pair.refreshToken as string);
          await response.arrayBuffer();
          return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: performance.now() - started };
        }),
      );
    } finally {
      connection.exec('ROLLBACK');
      await locker.client.releaseConnection(connection);
      await locker.destroy();
    }
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    console.log(`      busy SQLite: ${answers.length} concurrent refreshes, slowest ${Math.round(slowest)} ms`);
    for (const answer of answers) expect([answer.status, answer.retryAfter]).to.deep.equal([503, '1']);
    // The busy timeout (3 s) once, then every queued request at once: not a busy wait each.
    expect(slowest).to.be.below(7000);
    const served = await refresh(pairs[0]?.refreshToken as string);
    expect(served.status, 'the refresh token was not used up by the refused attempt').to.equal(200);
  });
});
