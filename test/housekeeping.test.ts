import { expect } from 'chai';
import { ConfigError } from '../src/config/config-error.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase, toDate, type Database } from '../src/db/connection.js';
import { readLease, releaseLease, renewLease, takeLease } from '../src/housekeeping/lease.js';
import { prune, type PruneReport } from '../src/housekeeping/prune.js';
import { PRUNE_JOB, PruneInterrupted, pruneUnderLease } from '../src/housekeeping/run-prune.js';
import { createLogger } from '../src/shared/logger.js';
import { startServer } from '../src/server.js';
import { describeEachDatabase } from './support/databases.js';
import {
  ago,
  countRows,
  DAY,
  exists,
  insertCode,
  insertCounter,
  insertDocumentClient,
  insertPair,
  insertRequest,
  insertSession,
  makeOwner,
  type Owner,
} from './support/housekeeping-fixtures.js';
import { runCli } from './support/processes.js';
import { testConfig } from './support/server.js';

const HOUR = 60 * 60 * 1000;
const later = (ms: number) => new Date(Date.now() + ms);

/** Polls until `check` holds; a generous deadline, since a busy machine may be slow to get to the timer. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('housekeeping configuration', () => {
  it('runs hourly with a 7-day retention unless configured; 0 turns the job off', () => {
    expect(loadConfig({}).prune).to.deep.equal({ intervalSeconds: 3600, retentionDays: 7, dutyPercent: 25 });
    expect(loadConfig({ SCHOOLGATE_PRUNE_INTERVAL_SECONDS: '0', SCHOOLGATE_PRUNE_RETENTION_DAYS: '30', SCHOOLGATE_PRUNE_DUTY_PERCENT: '100' }).prune).to.deep.equal({
      intervalSeconds: 0,
      retentionDays: 30,
      dutyPercent: 100,
    });
  });

  it('refuses values that are not whole numbers', () => {
    expect(() => loadConfig({ SCHOOLGATE_PRUNE_INTERVAL_SECONDS: 'hourly' })).to.throw(ConfigError, /SCHOOLGATE_PRUNE_INTERVAL_SECONDS/);
    expect(() => loadConfig({ SCHOOLGATE_PRUNE_RETENTION_DAYS: '-1' })).to.throw(ConfigError, /SCHOOLGATE_PRUNE_RETENTION_DAYS/);
    expect(() => loadConfig({ SCHOOLGATE_PRUNE_RETENTION_DAYS: '1.5' })).to.throw(ConfigError, /SCHOOLGATE_PRUNE_RETENTION_DAYS/);
    for (const bad of ['0', '101', 'half']) expect(() => loadConfig({ SCHOOLGATE_PRUNE_DUTY_PERCENT: bad }), bad).to.throw(ConfigError, /SCHOOLGATE_PRUNE_DUTY_PERCENT/);
  });
});

describeEachDatabase('housekeeping: prune', (scratch) => {
  let db: Database;
  let owner: Owner;

  before(async function () {
    this.timeout(60_000);
    db = scratch().db;
    owner = await makeOwner(db, 'prune');
  });

  it('deletes every kind of expired record past its grace or retention and keeps the rest', async function () {
    this.timeout(60_000);
    const pairs = {
      live: await insertPair(db, owner, { accessExpiresAt: later(HOUR), refreshExpiresAt: later(30 * DAY) }),
      revokedYesterday: await insertPair(db, owner, { accessExpiresAt: ago(DAY), refreshExpiresAt: later(29 * DAY), revokedAt: ago(DAY) }),
      refreshExpiredYesterday: await insertPair(db, owner, { accessExpiresAt: ago(2 * DAY), refreshExpiresAt: ago(DAY) }),
      accessOnlyExpiredYesterday: await insertPair(db, owner, { accessExpiresAt: ago(DAY), refreshExpiresAt: null }),
      refreshExpiredPastRetention: await insertPair(db, owner, { accessExpiresAt: ago(9 * DAY), refreshExpiresAt: ago(8 * DAY) }),
      revokedPastRetention: await insertPair(db, owner, { accessExpiresAt: ago(8 * DAY), refreshExpiresAt: later(20 * DAY), revokedAt: ago(8 * DAY) }),
      accessOnlyExpiredPastRetention: await insertPair(db, owner, { accessExpiresAt: ago(8 * DAY), refreshExpiresAt: null }),
    };
    // A used code whose grant still has a live pair keeps detecting replays; one whose grant is gone does not.
    const liveGrant = 'grant-with-a-live-pair';
    await insertPair(db, owner, { accessExpiresAt: later(HOUR), refreshExpiresAt: later(30 * DAY), grantId: liveGrant });
    const codes = {
      unusedExpiredTwoDaysAgo: await insertCode(db, owner, { expiresAt: ago(2 * DAY) }),
      unusedExpiredAnHourAgo: await insertCode(db, owner, { expiresAt: ago(HOUR) }),
      usedLongAgoGrantLive: await insertCode(db, owner, { expiresAt: ago(10 * DAY), consumedAt: ago(10 * DAY), grantId: liveGrant }),
      usedLongAgoGrantGone: await insertCode(db, owner, { expiresAt: ago(10 * DAY), consumedAt: ago(10 * DAY) }),
      usedWithinRetention: await insertCode(db, owner, { expiresAt: ago(2 * DAY), consumedAt: ago(2 * DAY) }),
    };
    const requests = {
      expiredTwoDaysAgo: await insertRequest(db, owner, ago(2 * DAY)),
      expiredAnHourAgo: await insertRequest(db, owner, ago(HOUR)),
      live: await insertRequest(db, owner, later(HOUR)),
    };
    const sessions = {
      expiredTwoDaysAgo: await insertSession(db, owner, { expiresAt: ago(2 * DAY) }),
      revokedTwoDaysAgo: await insertSession(db, owner, { expiresAt: later(HOUR), revokedAt: ago(2 * DAY) }),
      expiredAnHourAgo: await insertSession(db, owner, { expiresAt: ago(HOUR) }),
      live: await insertSession(db, owner, { expiresAt: later(HOUR) }),
    };
    const counters = { finished: await insertCounter(db, ago(60_000)), current: await insertCounter(db, later(60_000)) };
    const documentClients = {
      staleUnused: await insertDocumentClient(db, owner, ago(10 * DAY)),
      staleReviewed: await insertDocumentClient(db, owner, ago(10 * DAY), { reviewed: true }),
      staleWithLivePair: await insertDocumentClient(db, owner, ago(10 * DAY)),
      staleWithOldPair: await insertDocumentClient(db, owner, ago(10 * DAY)),
      staleWithPendingRequest: await insertDocumentClient(db, owner, ago(10 * DAY)),
      recentlyStale: await insertDocumentClient(db, owner, ago(2 * DAY)),
      staleWithUsage: await insertDocumentClient(db, owner, ago(10 * DAY)),
    };
    const documentPairs = {
      live: await insertPair(db, owner, { accessExpiresAt: later(HOUR), refreshExpiresAt: later(30 * DAY), clientRef: documentClients.staleWithLivePair }),
      old: await insertPair(db, owner, { accessExpiresAt: ago(20 * DAY), refreshExpiresAt: ago(10 * DAY), clientRef: documentClients.staleWithOldPair }),
    };
    await insertRequest(db, owner, later(HOUR), documentClients.staleWithPendingRequest);
    // Usage counts are kept 90 UTC days (the default retention), today included; a deleted client's go with it, the
    // anonymous ones (client_ref 0) stay.
    const usageDay = (days: number) => ago(days * DAY).toISOString().slice(0, 10);
    const usage = (clientRef: number, day: string) => ({ site_id: owner.site.id, api: 'graphql', element: 'Course.slug', client_ref: clientRef, day, uses: 3, last_used_at: ago(DAY) });
    const deletedClient = await insertDocumentClient(db, owner, later(DAY));
    await db('oauth_clients').where({ id: deletedClient }).delete();
    await db('api_usage').insert([usage(owner.clientRef, usageDay(90)), usage(owner.clientRef, usageDay(89)), usage(documentClients.staleWithUsage, usageDay(30)), usage(0, usageDay(30)), usage(deletedClient, usageDay(2))]);

    const dryRun = await prune(db, { dryRun: true });
    expect(dryRun.dryRun).to.equal(true);
    expect(await exists(db, 'token_pairs', { id: pairs.revokedPastRetention })).to.equal(true);

    const report = await prune(db);
    expect(report.deleted).to.deep.equal({
      rate_limit_counters: 1,
      authorization_requests: 1,
      sign_in_sessions: 2,
      token_pairs: 4,
      authorization_codes: 2,
      api_usage: 3,
      metadata_document_clients: 3,
      used_jtis: 0,
      logout_deliveries: 0,
    });
    expect(report).to.include({ total: 16, retentionDays: 7, batchSize: 1000, dutyPercent: 25, dryRun: false });
    // The dry run saw everything except what depends on an earlier deletion (the old pair's client).
    expect(dryRun.deleted.token_pairs).to.equal(4);
    expect(dryRun.deleted.metadata_document_clients).to.equal(2);
    expect(dryRun.deleted.api_usage).to.equal(2);

    const kept = async (table: string, id: number) => exists(db, table, { id });
    for (const [name, id] of Object.entries(pairs)) expect(await kept('token_pairs', id), name).to.equal(!name.includes('PastRetention'));
    expect(await kept('token_pairs', documentPairs.live)).to.equal(true);
    expect(await kept('token_pairs', documentPairs.old)).to.equal(false);
    const deletedCodes = ['unusedExpiredTwoDaysAgo', 'usedLongAgoGrantGone'];
    for (const [name, id] of Object.entries(codes)) expect(await kept('authorization_codes', id), name).to.equal(!deletedCodes.includes(name));
    for (const [name, id] of Object.entries(requests)) expect(await kept('authorization_requests', id), name).to.equal(name !== 'expiredTwoDaysAgo');
    for (const [name, id] of Object.entries(sessions)) expect(await kept('sign_in_sessions', id), name).to.equal(!name.endsWith('TwoDaysAgo'));
    expect(await exists(db, 'rate_limit_counters', { bucket: counters.finished })).to.equal(false);
    expect(await exists(db, 'rate_limit_counters', { bucket: counters.current })).to.equal(true);
    expect(await db('api_usage').orderBy('day').select('day', 'client_ref')).to.deep.equal([
      { day: usageDay(89), client_ref: owner.clientRef },
      { day: usageDay(30), client_ref: 0 },
    ]);
    const deletedClients = ['staleUnused', 'staleWithOldPair', 'staleWithUsage'];
    for (const [name, id] of Object.entries(documentClients)) expect(await kept('oauth_clients', id), name).to.equal(!deletedClients.includes(name));
    expect(await kept('oauth_clients', owner.clientRef)).to.equal(true);

    // Nothing left to do: a second run deletes nothing.
    expect((await prune(db)).total).to.equal(0);
  });

  it('deletes used jtis once their assertion or proof has expired, under either purpose, and keeps live ones', async () => {
    const used = (purpose: string, hash: string, expiresAt: Date) => ({ purpose, jti_hash: hash, expires_at: expiresAt });
    // One hash under both purposes: the DELETE names hashes, so the expiry is checked again per row.
    await db('used_jtis').insert([
      used('client_assertion', 'a'.repeat(64), ago(60_000)),
      used('dpop', 'a'.repeat(64), later(HOUR)),
      used('dpop', 'b'.repeat(64), ago(1000)),
      used('client_assertion', 'c'.repeat(64), later(60_000)),
    ]);
    expect((await prune(db)).deleted.used_jtis).to.equal(2);
    const left = await db('used_jtis').whereIn('jti_hash', ['a'.repeat(64), 'b'.repeat(64), 'c'.repeat(64)]).orderBy('jti_hash').select('purpose', 'jti_hash');
    expect(left.map((row: { purpose: string; jti_hash: string }) => `${row.purpose}:${row.jti_hash[0]}`)).to.deep.equal(['dpop:a', 'client_assertion:c']);
  });

  it('honours a shorter retention', async () => {
    const revokedTwoDaysAgo = await insertPair(db, owner, { accessExpiresAt: ago(2 * DAY), refreshExpiresAt: later(20 * DAY), revokedAt: ago(2 * DAY) });
    expect((await prune(db, { retentionDays: 3 })).deleted.token_pairs).to.equal(0);
    expect((await prune(db, { retentionDays: 1 })).deleted.token_pairs).to.be.at.least(1);
    expect(await exists(db, 'token_pairs', { id: revokedTwoDaysAgo })).to.equal(false);
  });

  it('works through bounded batches: five rows at two per statement are all deleted, never more than two per DELETE', async function () {
    this.timeout(60_000);
    for (let i = 0; i < 5; i += 1) {
      await insertPair(db, owner, { accessExpiresAt: ago(20 * DAY), refreshExpiresAt: ago(10 * DAY) });
      await insertCounter(db, ago(60_000));
    }
    const deletes: Array<{ sql: string; bindings: unknown[] }> = [];
    const listener = (query: { sql: string; bindings?: unknown[] }) => {
      if (/^delete\b/i.test(query.sql)) deletes.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    db.on('query', listener);
    let batches = 0;
    let report: PruneReport;
    try {
      report = await prune(db, { batchSize: 2, beforeBatch: async () => void (batches += 1) });
    } finally {
      db.off('query', listener);
    }
    expect(report.deleted.token_pairs).to.equal(5);
    expect(report.deleted.rate_limit_counters).to.equal(5);
    const pairDeletes = deletes.filter((query) => /token_pairs/.test(query.sql));
    expect(pairDeletes).to.have.length(3);
    // Each DELETE names its rows by primary key, at most two of them.
    for (const query of pairDeletes) expect(query.bindings.length).to.be.within(1, 2);
    const counterDeletes = deletes.filter((query) => /rate_limit_counters/.test(query.sql));
    expect(counterDeletes).to.have.length(3);
    // …and a counter DELETE names its buckets, with the cutoff it checks again.
    for (const query of counterDeletes) expect(query.bindings.length).to.be.within(2, 3);
    expect(batches).to.be.greaterThan(6);
  });

  it('walks past used codes it must keep instead of finding them again in every batch', async function () {
    this.timeout(60_000);
    const grants = ['kept-grant-1', 'kept-grant-2', 'kept-grant-3'];
    const keptCodes: number[] = [];
    const goneCodes: number[] = [];
    for (const grantId of grants) {
      await insertPair(db, owner, { accessExpiresAt: later(HOUR), refreshExpiresAt: later(30 * DAY), grantId });
      keptCodes.push(await insertCode(db, owner, { expiresAt: ago(10 * DAY), consumedAt: ago(10 * DAY), grantId }));
      goneCodes.push(await insertCode(db, owner, { expiresAt: ago(10 * DAY), consumedAt: ago(10 * DAY) }));
    }
    const report = await prune(db, { batchSize: 2 });
    expect(report.deleted.authorization_codes).to.equal(3);
    for (const id of keptCodes) expect(await exists(db, 'authorization_codes', { id })).to.equal(true);
    for (const id of goneCodes) expect(await exists(db, 'authorization_codes', { id })).to.equal(false);
  });

  describe('the lease', () => {
    let other: Database;
    before(async () => {
      // A second connection pool on the same database: another instance, as far as the lease can tell.
      other = openDatabase(scratch().config);
      await other.raw('select 1');
    });
    after(async () => {
      await other.destroy();
    });

    it('lets exactly one of two concurrent runs proceed, and records the run', async function () {
      this.timeout(60_000);
      for (let i = 0; i < 4; i += 1) await insertPair(db, owner, { accessExpiresAt: ago(20 * DAY), refreshExpiresAt: ago(10 * DAY) });
      // Each batch dawdles a little, so the two runs surely overlap in time whichever starts first.
      const dawdle = async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return false;
      };
      const outcomes = await Promise.all([
        pruneUnderLease(db, { holder: 'instance-a', batchSize: 1, shouldStop: dawdle }),
        pruneUnderLease(other, { holder: 'instance-b', batchSize: 1, shouldStop: dawdle }),
      ]);
      expect(outcomes.filter((outcome) => outcome.ran)).to.have.length(1);
      const winner = outcomes.find((outcome) => outcome.ran);
      const loser = outcomes.find((outcome) => !outcome.ran);
      if (!winner?.ran || !loser || loser.ran) throw new Error('expected one run and one refusal');
      expect(winner.report.deleted.token_pairs).to.equal(4);
      expect(loser.lease?.holder).to.be.oneOf(['instance-a', 'instance-b']);

      const lease = await readLease(db, PRUNE_JOB);
      expect(lease?.holder).to.equal(null);
      expect(lease?.lastFinishedAt).to.be.instanceOf(Date);
      expect((lease?.lastReport as PruneReport).deleted.token_pairs).to.equal(4);
    });

    it('skips a run when another finished recently, if asked to', async () => {
      const outcome = await pruneUnderLease(db, { holder: 'instance-c', unlessFinishedAfter: ago(HOUR) });
      expect(outcome.ran).to.equal(false);
      expect((await pruneUnderLease(db, { holder: 'instance-c' })).ran).to.equal(true);
    });

    it('is taken over once a crashed holder lets it expire; the old holder can then neither renew nor release it', async () => {
      const now = Date.now();
      expect(await takeLease(db, 'test-job', 'crashed', 1000, { now: new Date(now) })).to.equal(true);
      expect(await takeLease(other, 'test-job', 'successor', 1000, { now: new Date(now + 500) })).to.equal(false);
      expect(await takeLease(other, 'test-job', 'successor', 1000, { now: new Date(now + 1500) })).to.equal(true);
      expect(await renewLease(db, 'test-job', 'crashed', 1000, new Date(now + 1600))).to.equal(false);
      await releaseLease(db, 'test-job', 'crashed');
      expect((await readLease(db, 'test-job'))?.holder).to.equal('successor');
      await releaseLease(other, 'test-job', 'successor', { done: true });
      expect(await readLease(db, 'test-job')).to.deep.include({ holder: null, lastReport: { done: true } });

      // The prune's own lease, left behind by an instance that died mid-run two minutes after taking it.
      expect(await takeLease(db, PRUNE_JOB, 'died-mid-run', 1000, { now: ago(2 * 60_000) })).to.equal(true);
      expect((await pruneUnderLease(other, { holder: 'survivor' })).ran).to.equal(true);
    });

    it('stops between batches when its lease ran out and another instance took it', async () => {
      await insertPair(db, owner, { accessExpiresAt: ago(20 * DAY), refreshExpiresAt: ago(10 * DAY) });
      let paused = false;
      const run = pruneUnderLease(db, {
        holder: 'stalled',
        leaseTtlMs: 30,
        batchSize: 1,
        // The holder stalls past its lease before its first batch, and a rival takes the lease meanwhile.
        shouldStop: async () => {
          if (!paused) {
            paused = true;
            await new Promise((resolve) => setTimeout(resolve, 100));
            expect(await takeLease(other, PRUNE_JOB, 'rival', 60_000)).to.equal(true);
          }
          return false;
        },
      });
      let failure: unknown;
      await run.catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(PruneInterrupted);
      expect((await readLease(db, PRUNE_JOB))?.holder).to.equal('rival');
      await releaseLease(db, PRUNE_JOB, 'rival');
      // What the stalled run left is done by the next one.
      expect((await prune(db)).deleted.token_pairs).to.equal(1);
    });
  });

  it('runs as an interval job inside a real server, and stops with it', async function () {
    this.timeout(60_000);
    const config = testConfig({ database: scratch().config, prune: { intervalSeconds: 1, retentionDays: 7, dutyPercent: 50 } });
    const before = await readLease(db, PRUNE_JOB);
    const counter = await insertCounter(db, ago(60_000));
    const pair = await insertPair(db, owner, { accessExpiresAt: ago(20 * DAY), refreshExpiresAt: ago(10 * DAY) });
    const running = await startServer(config, { db, logger: createLogger(config.logLevel) });
    try {
      await eventually(async () => !(await exists(db, 'rate_limit_counters', { bucket: counter })) && !(await exists(db, 'token_pairs', { id: pair })));
      await eventually(async () => {
        const lease = await readLease(db, PRUNE_JOB);
        return lease?.holder === null && (lease.lastFinishedAt?.getTime() ?? 0) > (before?.lastFinishedAt?.getTime() ?? 0);
      });
    } finally {
      await running.stop(1000);
    }
    // Stopped: nothing runs any more.
    const stoppedAt = (await readLease(db, PRUNE_JOB))?.lastStartedAt?.getTime() ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await readLease(db, PRUNE_JOB))?.lastStartedAt?.getTime() ?? 0).to.equal(stoppedAt);
  });

  describe('schoolgate prune', () => {
    const env = () => ({ DATABASE_URL: scratch().url });

    it('--dry-run counts, then a run deletes in batches and prints the report as JSON', async function () {
      this.timeout(120_000);
      const ids = [];
      for (let i = 0; i < 3; i += 1) ids.push(await insertPair(db, owner, { accessExpiresAt: ago(20 * DAY), refreshExpiresAt: ago(10 * DAY) }));
      const dry = await runCli(['--json', 'prune', '--dry-run'], env());
      expect(dry.code, dry.stderr).to.equal(0);
      expect(JSON.parse(dry.stdout)).to.deep.include({ dryRun: true, retentionDays: 7 });
      expect((JSON.parse(dry.stdout) as PruneReport).deleted.token_pairs).to.equal(3);
      expect(await countRows(db, 'token_pairs')).to.be.at.least(3);

      const result = await runCli(['--json', 'prune', '--batch-size', '2', '--retention-days', '7'], env());
      expect(result.code, result.stderr).to.equal(0);
      const report = JSON.parse(result.stdout) as PruneReport;
      expect(report).to.deep.include({ dryRun: false, batchSize: 2, retentionDays: 7 });
      expect(report.deleted.token_pairs).to.equal(3);
      expect(report.durationMs).to.be.a('number');
      for (const id of ids) expect(await exists(db, 'token_pairs', { id })).to.equal(false);

      const text = await runCli(['prune'], env());
      expect(text.code, text.stderr).to.equal(0);
      expect(text.stdout).to.match(/^deleted 0 rows in \d+\.\d\d s \(retention 7 days, batches of 1000, 25% of the time in batches\)/);
      expect(text.stdout).to.match(/token_pairs\s+0/);
    });

    it('exits 1 while another instance holds the lease, and 2 on a bad option', async function () {
      this.timeout(120_000);
      expect(await takeLease(db, PRUNE_JOB, 'busy-instance', 60_000)).to.equal(true);
      try {
        const busy = await runCli(['--json', 'prune'], env());
        expect(busy.code).to.equal(1);
        expect(JSON.parse(busy.stdout)).to.include({ error: 'prune_running' });
        expect(JSON.parse(busy.stdout).message).to.contain('busy-instance');
      } finally {
        await releaseLease(db, PRUNE_JOB, 'busy-instance');
      }
      const bad = await runCli(['prune', '--batch-size', '0'], env());
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.contain('--batch-size');
      const badDuty = await runCli(['prune', '--duty-percent', '101'], env());
      expect(badDuty.code).to.equal(2);
      expect(badDuty.stderr).to.contain('--duty-percent');
      const help = await runCli(['prune', '--help'], env());
      expect(help.code).to.equal(0);
      expect(help.stdout).to.contain('--retention-days');
    });
  });

  it('keeps times it reads back as instants', async () => {
    // Guards the fixtures: what went in as "ten days ago" comes back as that instant on both stores.
    const when = ago(10 * DAY);
    const id = await insertPair(db, owner, { accessExpiresAt: when, refreshExpiresAt: later(DAY) });
    const row = (await db('token_pairs').where({ id }).first('access_expires_at')) as { access_expires_at: unknown };
    expect(toDate(row.access_expires_at)?.getTime()).to.equal(when.getTime());
  });
});
