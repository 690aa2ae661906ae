import { expect } from 'chai';
import type { Database } from '../src/db/connection.js';
import { keyedDelete } from '../src/housekeeping/batches.js';
import { prune } from '../src/housekeeping/prune.js';
import { cutoffsAt, pruneRules } from '../src/housekeeping/prune-rules.js';
import { isMysql } from '../src/db/connection.js';
import { pauseAfter } from '../src/housekeeping/pace.js';
import { PRUNE_JOB, PruneInterrupted, pruneUnderLease } from '../src/housekeeping/run-prune.js';
import { readLease } from '../src/housekeeping/lease.js';
import { describeEachDatabase } from './support/databases.js';
import { ago, DAY, exists, insertPair, makeOwner, type Owner } from './support/housekeeping-fixtures.js';
import { makeClient } from './support/oauth-fixtures.js';

const HOUR = 60 * 60 * 1000;
const later = (ms: number) => new Date(Date.now() + ms);

/** A clock that moves `step` milliseconds each time it is read: every batch then takes exactly `step`. */
function steppingClock(step: number): () => number {
  let now = 0;
  let read = 0;
  // Read twice per batch (start, end): the batch lasts one step, the time between two batches none.
  return () => (read++ % 2 === 0 ? now : (now += step));
}

interface Statement {
  sql: string;
  bindings: unknown[];
}

async function recordStatements<T>(db: Database, run: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
  const statements: Statement[] = [];
  const listener = (query: { sql: string; bindings?: unknown[] }) => void statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
  db.on('query', listener);
  try {
    return { result: await run(), statements };
  } finally {
    db.off('query', listener);
  }
}

describe('the prune\'s pause between batches', () => {
  it('rests as long as the batch took at 50%, three times as long at 25%, not at all at 100%', () => {
    expect(pauseAfter(40, 50)).to.equal(40);
    expect(pauseAfter(40, 25)).to.equal(120);
    expect(pauseAfter(40, 100)).to.equal(0);
    expect(() => pauseAfter(40, 0)).to.throw(RangeError);
    expect(() => pauseAfter(40, 101)).to.throw(RangeError);
  });
});

describeEachDatabase('housekeeping: bounded batches', (scratch) => {
  let db: Database;
  let owner: Owner;

  before(async function () {
    this.timeout(60_000);
    db = scratch().db;
    owner = await makeOwner(db, 'batches');
  });

  /** Expired pairs past the retention next to live and recently revoked ones; returns both lists of ids. */
  async function pairs(expired: number): Promise<{ expired: number[]; kept: number[] }> {
    const ids = { expired: [] as number[], kept: [] as number[] };
    for (let i = 0; i < expired; i += 1) ids.expired.push(await insertPair(db, owner, { accessExpiresAt: ago(20 * DAY), refreshExpiresAt: ago(10 * DAY) }));
    ids.kept.push(await insertPair(db, owner, { accessExpiresAt: later(HOUR), refreshExpiresAt: later(30 * DAY) }));
    ids.kept.push(await insertPair(db, owner, { accessExpiresAt: ago(DAY), refreshExpiresAt: later(20 * DAY), revokedAt: ago(DAY) }));
    return ids;
  }

  it('deletes in several batches, pauses after each in proportion to its time, and keeps what has not expired', async function () {
    this.timeout(60_000);
    const ids = await pairs(7);
    const pauses: number[] = [];
    const { result: report, statements } = await recordStatements(db, () =>
      prune(db, { batchSize: 3, dutyPercent: 25, clock: steppingClock(40), sleep: async (ms) => void pauses.push(ms) }),
    );
    expect(report.deleted.token_pairs).to.equal(7);
    for (const id of ids.expired) expect(await exists(db, 'token_pairs', { id })).to.equal(false);
    for (const id of ids.kept) expect(await exists(db, 'token_pairs', { id })).to.equal(true);
    const pairDeletes = statements.filter((statement) => /^delete\b/i.test(statement.sql) && /token_pairs/.test(statement.sql));
    expect(pairDeletes.map((statement) => statement.bindings.length)).to.deep.equal([3, 3, 1]);
    // Each batch that found rows took 40 ms on this clock and was followed by 120 ms; an empty SELECT, by nothing.
    expect(pauses).to.deep.equal([120, 120, 120]);
    expect(report).to.include({ dutyPercent: 25, pausedMs: 360 });
  });

  it('does not pause at a duty cycle of 100%', async function () {
    this.timeout(60_000);
    await pairs(2);
    const pauses: number[] = [];
    const report = await prune(db, { batchSize: 1, dutyPercent: 100, clock: steppingClock(40), sleep: async (ms) => void pauses.push(ms) });
    expect(report.deleted.token_pairs).to.equal(2);
    expect(pauses).to.deep.equal([]);
    expect(report.pausedMs).to.equal(0);
  });

  it('stops between two batches when asked during a pause, deleting no more than the batches run', async function () {
    this.timeout(60_000);
    const ids = await pairs(6);
    let stop = false;
    let pausesSeen = 0;
    let error: unknown;
    try {
      await pruneUnderLease(db, {
        holder: 'pausing-instance',
        batchSize: 2,
        clock: steppingClock(10),
        // The shutdown arrives while the first batch's pause is under way.
        sleep: async () => void ((pausesSeen += 1), (stop = true)),
        shouldStop: () => stop,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(PruneInterrupted);
    expect(pausesSeen).to.equal(1);
    const left = await Promise.all(ids.expired.map((id) => exists(db, 'token_pairs', { id })));
    expect(left.filter((present) => !present)).to.have.length(2);
    // The lease was given back without a report.
    expect((await readLease(db, PRUNE_JOB))?.holder).to.equal(null);
    await prune(db, { dutyPercent: 100 });
  });

  it('deletes old usage days a few rows per statement, by the whole key, across sites', async function () {
    this.timeout(60_000);
    const other = await makeOwner(db, 'batches-usage');
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
    const row = (siteId: number, daysAgo: number, element: string) => ({ site_id: siteId, day: day(daysAgo), api: 'graphql', element, client_ref: 0, uses: 1, last_used_at: new Date() });
    const rows = [];
    for (const site of [owner.site.id, other.site.id]) for (const element of ['a', 'b', 'c']) rows.push(row(site, 10, element), row(site, 11, element), row(site, 1, element));
    await db('api_usage').insert(rows);
    const { result: report, statements } = await recordStatements(db, () => prune(db, { usageRetentionDays: 5, batchSize: 4, dutyPercent: 100 }));
    expect(report.deleted.api_usage).to.equal(12);
    const deletes = statements.filter((statement) => /^delete\b/i.test(statement.sql) && /api_usage/.test(statement.sql));
    // Five key columns per row named, at most four rows per statement.
    expect(deletes.map((statement) => statement.bindings.length)).to.deep.equal([20, 20, 20]);
    const left = (await db('api_usage').whereIn('site_id', [owner.site.id, other.site.id]).select('day')) as Array<{ day: string }>;
    expect(left.map((kept) => kept.day)).to.deep.equal(Array(6).fill(day(1)));
  });

  it('drops the counts of deleted clients in batches, and never reads the rows of a client that still exists', async function () {
    this.timeout(60_000);
    const kept = await makeClient(db, owner.site, { audience: 'member', confidential: false, scopes: ['account:read'] });
    const gone = await makeClient(db, owner.site, { audience: 'member', confidential: false, scopes: ['account:read'] });
    const today = new Date().toISOString().slice(0, 10);
    const row = (clientRef: number, element: string) => ({ site_id: owner.site.id, day: today, api: 'mcp', element, client_ref: clientRef, uses: 1, last_used_at: new Date() });
    const elements = ['e1', 'e2', 'e3', 'e4', 'e5'];
    await db('api_usage').insert([...elements.map((e) => row(kept.client.ref, e)), ...elements.map((e) => row(gone.client.ref, e)), ...elements.map((e) => row(0, e))]);
    await db('oauth_clients').where({ id: gone.client.ref }).delete();
    const dry = await prune(db, { dryRun: true });
    expect(dry.deleted.api_usage).to.equal(5);
    const { result: report, statements } = await recordStatements(db, () => prune(db, { batchSize: 2, dutyPercent: 100 }));
    expect(report.deleted.api_usage).to.equal(5);
    const usage = statements.filter((statement) => /api_usage/.test(statement.sql));
    expect(usage.filter((statement) => /^delete\b/i.test(statement.sql))).to.have.length(3);
    // Rows are only ever selected with the gone client's id; the live client's id appears only in the walk of ids.
    const rowSelects = usage.filter((statement) => /^select\b/i.test(statement.sql) && /\bwhere\b.*client_ref/i.test(statement.sql) && !/\bmin\(/i.test(statement.sql));
    expect(rowSelects).to.have.length(3);
    for (const select of rowSelects) expect(select.bindings).to.include(gone.client.ref);
    expect(await db('api_usage').where({ site_id: owner.site.id, day: today }).count({ n: '*' }).first()).to.satisfy((counted: { n: number | string }) => Number(counted.n) === 10);
    expect((await db('api_usage').where({ client_ref: gone.client.ref }).first()) ?? null).to.equal(null);
  });

  it('deletes a full batch of usage rows through the primary key, not a scan of the table', async function () {
    this.timeout(60_000);
    const other = await makeOwner(db, 'batches-plan');
    const rows = Array.from({ length: 3000 }, (_, i) => ({ site_id: other.site.id, day: '2020-01-01', api: 'graphql', element: `plan-${i}`, client_ref: i % 7, uses: 1, last_used_at: new Date() }));
    for (let start = 0; start < rows.length; start += 400) await db('api_usage').insert(rows.slice(start, start + 400));
    const [rule] = pruneRules(cutoffsAt(new Date(), 7, 90)).filter((candidate) => candidate.table === 'api_usage');
    if (!rule) throw new Error('no usage rule');
    const selected = (await db('api_usage').select('site_id', 'day', 'api', 'element', 'client_ref').where({ site_id: other.site.id }).limit(1000)) as Array<Record<string, unknown>>;
    const { sql, bindings } = keyedDelete(db, rule, selected).toSQL();
    if (isMysql(db)) {
      const [plan] = (await db.raw(`EXPLAIN ${sql}`, bindings)) as [Array<{ type: string; key: string | null }>];
      expect(plan.map((step) => [step.type, step.key])).to.deep.equal([['range', 'PRIMARY']]);
    } else {
      const plan = (await db.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings)) as Array<{ detail: string }>;
      expect(plan.map((step) => step.detail).join(' | ')).to.match(/^SEARCH api_usage USING (COVERING )?INDEX sqlite_autoindex_api_usage_1/);
    }
    await db('api_usage').where({ site_id: other.site.id }).delete();
  });
});
