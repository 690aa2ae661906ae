import { expect } from 'chai';
import { openDatabase, type Database } from '../src/db/connection.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { burst, interfaceRequests, p99, startFaultInstance, timeToRecover, type FaultInstance, type LogLine, type Timed } from './support/fault-instance.js';

/**
 * Fail fast while the database does not answer (docs/operations.md, "Database outages"): whichever way MySQL fails
 * behind a TCP proxy (refused, black-holed on open connections, hanging on new ones, every connection held by a lock
 * wait), 30 concurrent requests over userinfo, a refresh, member GraphQL, /mcp and the admin API all answer 503
 * temporarily_unavailable with Retry-After within the bound below (the 1 s the service aims for, with the margin a
 * shared CI machine needs: there a shed request alone can take half a second; before, a black-holed database took
 * 9–10 s), and the instance serves again within a couple of
 * seconds of the database answering. The probes never show the database's address or the driver's text; the log says
 * each change of state once, at warn, without a stack.
 */
const BOUND_MS = 3000;
/**
 * A lock wait answers after the session's lock wait timeout (3 s), and the transaction runs again while its budget
 * (10 s: a conflict storm is the database answering) lasts, so a lock held for good answers after four waits; a request
 * queued behind them after the acquire timeout (2 s).
 */
const LOCK_BOUND_MS = 14000;
const RECOVERY_BOUND_MS = 2000;
const CONCURRENT = 30;

const describeMysql = TEST_DATABASE_KINDS.includes('mysql') ? describe : describe.skip;

function expectAllUnavailable(answers: readonly Timed[], boundMs: number, label: string): void {
  for (const answer of answers) {
    expect(answer.status, `${label}: ${answer.kind}`).to.equal(503);
    expect(answer.retryAfter, `${label}: ${answer.kind} Retry-After`).to.equal('1');
  }
  const slowest = p99(answers);
  // The figure docs/operations.md quotes; visible with --reporter spec.
  const slowestOf = (kind: string) => Math.round(Math.max(...answers.filter((answer) => answer.kind === kind).map((answer) => answer.ms)));
  const kinds = [...new Set(answers.map((answer) => answer.kind))].map((kind) => `${kind} ${slowestOf(kind)}`).join(', ');
  console.log(`      ${label}: ${answers.length} answers, p99 ${Math.round(slowest)} ms (slowest of each: ${kinds})`);
  expect(slowest, `${label}: p99`).to.be.below(boundMs);
}

const outageLines = (logs: readonly LogLine[], msg: RegExp) => logs.filter((line) => msg.test(line.msg));
const DOWN = /^the database does not answer/;
const UP = /^the database answers again/;

async function expectProbesSayNothingOf(instance: FaultInstance): Promise<void> {
  for (const path of ['/healthz', '/readyz']) {
    const response = await fetch(`${instance.origin}${path}`);
    expect(response.status, path).to.equal(503);
    const text = await response.text();
    const body = JSON.parse(text) as { status: string; database: { status: string; latencyMs: number } };
    expect(body.status, path).to.equal('unavailable');
    expect(Object.keys(body.database).sort(), path).to.deep.equal(['latencyMs', 'status']);
    expect(body.database.status, path).to.equal('unavailable');
    for (const secret of [String(instance.proxy.port), '127.0.0.1', 'ECONNREFUSED', 'connect', 'Knex', 'timeout', 'Timeout']) {
      expect(text, `${path} names ${secret}`).not.to.contain(secret);
    }
  }
}

describeMysql('fail fast while the database does not answer [mysql]', function () {
  this.timeout(120_000);
  let scratch: ScratchDatabase;
  let instance: FaultInstance;

  before(async () => {
    scratch = await createScratchDatabase('mysql');
    instance = await startFaultInstance(scratch);
  });

  after(async () => {
    await instance?.stop();
    await scratch?.drop();
  });

  /** Every interface answers 200; the refresh rotates the pair, so the next requests present the new refresh token. */
  async function expectServing(): Promise<void> {
    for (const [kind, send] of Object.entries(interfaceRequests(instance))) {
      const response = await send();
      const body = (await response.json()) as { refresh_token?: string };
      expect(response.status, `${kind}: ${JSON.stringify(body)}`).to.equal(200);
      if (kind === 'refresh') {
        expect(body.refresh_token).to.be.a('string');
        instance.refresh.token = body.refresh_token as string;
      }
    }
  }

  async function recover(label: string): Promise<void> {
    await instance.proxy.forward();
    const ms = await timeToRecover(instance, RECOVERY_BOUND_MS);
    console.log(`      ${label}: serving again ${Math.round(ms)} ms after the database answered`);
    await expectServing();
  }

  it('serves every interface while the database answers (the baseline of what follows)', async () => {
    await expectServing();
  });

  it('answers 503 with Retry-After within the bound while the database refuses connections, and serves again once it is back', async () => {
    const before = instance.logs.length;
    await instance.proxy.refuse();
    expectAllUnavailable(await burst(instance, CONCURRENT), BOUND_MS, 'refused');
    expectAllUnavailable(await burst(instance, CONCURRENT), BOUND_MS, 'refused, known down');
    await expectProbesSayNothingOf(instance);
    await recover('refused');
    const logs = instance.logs.slice(before);
    expect(outageLines(logs, DOWN), 'one line when it stopped answering').to.have.length(1);
    expect(outageLines(logs, UP), 'one line when it answered again').to.have.length(1);
  });

  it('answers 503 with Retry-After within the bound while the database black-holes open connections and new ones, and serves again once it answers', async () => {
    // Open connections in the pool first: the black hole keeps them open and silent, so a query sent on them hangs.
    await burst(instance, 10);
    instance.proxy.blackHole();
    expectAllUnavailable(await burst(instance, CONCURRENT), BOUND_MS, 'black-holed');
    expectAllUnavailable(await burst(instance, CONCURRENT), BOUND_MS, 'black-holed, known down');
    await expectProbesSayNothingOf(instance);
    await recover('black-holed');
  });

  it('answers 503 with Retry-After within the bound while new connections hang (cut connections, silent server)', async () => {
    instance.proxy.swallow();
    expectAllUnavailable(await burst(instance, CONCURRENT), BOUND_MS, 'hanging connects');
    await recover('hanging connects');
  });

  it('answers 503 with Retry-After when every request waits on a lock another session holds (the pool exhausted by lock waits)', async () => {
    const locker: Database = openDatabase(scratch.config);
    try {
      const connection = await locker.client.acquireConnection();
      const query = (sql: string) => new Promise<void>((resolve, reject) => (connection as { query(sql: string, cb: (error: Error | null) => void): void }).query(sql, (error) => (error ? reject(error) : resolve())));
      await query('LOCK TABLES token_pairs WRITE');
      try {
        expectAllUnavailable(await burst(instance, CONCURRENT), LOCK_BOUND_MS, 'lock waits');
      } finally {
        await query('UNLOCK TABLES');
        await locker.client.releaseConnection(connection);
      }
      // A lock wait is not an outage: the database answered the probe all along, so nothing was shed.
      await expectServing();
    } finally {
      await locker.destroy();
    }
  });

  it('logs each outage once per change of state, at warn, without a stack, and no outage at error level', () => {
    const down = outageLines(instance.logs, DOWN);
    const up = outageLines(instance.logs, UP);
    expect(down.length, 'refused, black-holed, hanging connects').to.equal(3);
    expect(up.length).to.equal(3);
    for (const line of [...down, ...up]) {
      expect(line.level, line.msg).to.equal(40);
      expect(JSON.stringify(line), line.msg).not.to.match(/stack|\n\s+at /);
    }
    expect(down[0]?.cause, 'the driver says why, in the log').to.match(/ECONNREFUSED|refused/);
    expect(instance.logs.filter((line) => line.level >= 50).map((line) => line.msg)).to.deep.equal([]);
    expect(instance.logs.filter((line) => JSON.stringify(line).includes('"stack"'))).to.deep.equal([]);
  });
});
