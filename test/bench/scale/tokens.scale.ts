/**
 * bench:scale, tokens: userinfo and refresh throughput and p99 as token_pairs grows from 10k to 1M and 10M rows, most
 * of them expired or revoked as in production, then userinfo p99 while the prune deletes the expired rows in batches.
 *
 * The table is filled by copying a seed of SEED rows (rotation chains of five: four superseded pairs and a last one
 * that is expired or still live) over and over, one INSERT … SELECT per copy, with fresh ids and fresh keys as the
 * product stores them (the pair's instant, then hash bits: src/oauth/tokens/token-keys.ts), so the unique key indexes
 * hold millions of older keys before the ones the measured requests add.
 * Filling stops at the store's time budget (SCALE_TOKENS_FILL_SECONDS): the largest size reached is measured and the
 * verdict says so.
 */
import { spawn } from 'node:child_process';
import type { Database } from '../../../src/db/connection.js';
import { DEFAULT_PRUNE_DUTY_PERCENT } from '../../../src/config/config.js';
import { readLease } from '../../../src/housekeeping/lease.js';
import { DEFAULT_BATCH_SIZE, DEFAULT_RETENTION_DAYS } from '../../../src/housekeeping/prune.js';
import { PRUNE_JOB } from '../../../src/housekeeping/run-prune.js';
import { newGrantId, insertPair } from '../../../src/oauth/tokens/store.js';
import { PROJECT_ROOT } from '../../../src/shared/paths.js';
import { createSite } from '../../../src/sites/sites.js';
import { createScratchDatabase } from '../../support/databases.js';
import { TEST_KEY_ENCRYPTION_ENV } from '../../support/key-encryption.js';
import { ago, DAY, pairRow, type Owner } from '../../support/housekeeping-fixtures.js';
import { makeClient, makeUser } from '../../support/oauth-fixtures.js';
import { CLI_ENTRY, type Target } from '../harness.js';
import { bulkSession, withoutSecondaryIndexes } from './token-fill.js';
import { load, percentFrom, seconds, shortCount, startProduct, type LoadFigures } from './load.js';
import { median, sleep } from './probes.js';
import type { ScaleContext, ScalePoint, ScaleScenario, ScaleSeries } from './types.js';

const SCOPES = ['openid', 'profile', 'email', 'account:read'] as const;
const CONNECTIONS = 16;
const CHAIN = 5;
/** The prune's duty cycle: the product's default, or SCHOOLGATE_PRUNE_DUTY_PERCENT as an operator would set it. */
const PRUNE_DUTY_PERCENT = Number(process.env.SCHOOLGATE_PRUNE_DUTY_PERCENT ?? DEFAULT_PRUNE_DUTY_PERCENT);

/** Share of the seed the prune deletes: four superseded pairs of every chain, and the expired last pair of every other one. */
const PRUNABLE_SHARE = 0.9;

interface Sizes {
  seed: number;
  /** Copies of the seed written between two checks of the fill budget. */
  copiesPerStep: number;
  sizes: number[];
  /** Each size's figure is the median of this many runs of `seconds` per path, the two paths taking turns. */
  rounds: number;
  seconds: number;
  firstWarmUpSeconds: number;
  pruneWindows: number;
  pruneWindowSeconds: number;
  fillBudgetSeconds: number;
  /** Steps of at least this many rows are written with the secondary indexes dropped, then rebuilt. */
  bulkRows: number;
}

function sizesFor(quick: boolean): Sizes {
  if (quick) return { seed: 500, copiesPerStep: 2, sizes: [1_000, 3_000], rounds: 1, seconds: 1, firstWarmUpSeconds: 2, pruneWindows: 2, pruneWindowSeconds: 1, fillBudgetSeconds: 30, bulkRows: 1_500 };
  return {
    seed: 10_000,
    copiesPerStep: 50,
    sizes: [10_000, 1_000_000, 10_000_000],
    rounds: 3,
    seconds: 2,
    firstWarmUpSeconds: 6,
    pruneWindows: 10,
    pruneWindowSeconds: 2,
    fillBudgetSeconds: Number(process.env.SCALE_TOKENS_FILL_SECONDS ?? 240),
    bulkRows: 500_000,
  };
}

/** The seed: ids 1..seed in chains of five, written with multi-row inserts in one transaction. */
export async function writeSeed(db: Database, owner: Owner, seed: number): Promise<void> {
  const rows: Array<Record<string, unknown>> = [];
  for (let id = 1; id <= seed; id += 1) {
    const position = (id - 1) % CHAIN;
    const chain = Math.floor((id - 1) / CHAIN);
    const grantId = `seed-${chain}`;
    let row: Record<string, unknown>;
    if (position < CHAIN - 1) {
      // Rotated away three weeks ago: superseded by the next pair of its chain, past the retention.
      row = { ...pairRow(owner, { accessExpiresAt: ago(21 * DAY), refreshExpiresAt: new Date(Date.now() + 9 * DAY), revokedAt: ago(20 * DAY), grantId }), revoked_reason: 'superseded' };
    } else if (chain % 2 === 0) {
      // The member stopped coming: the last refresh token expired ten days ago.
      row = pairRow(owner, { accessExpiresAt: ago(40 * DAY), refreshExpiresAt: ago(10 * DAY), grantId });
    } else {
      // Still in use: the access token has expired (two hours), the refresh token has weeks left.
      row = pairRow(owner, { accessExpiresAt: ago(DAY), refreshExpiresAt: new Date(Date.now() + 29 * DAY), grantId });
    }
    rows.push({ ...row, id, parent_pair_id: position === 0 ? null : id - 1 });
  }
  // SQLite caps a multi-row INSERT (a compound SELECT under knex) at 500 rows.
  await db.transaction(async (trx) => {
    for (let start = 0; start < rows.length; start += 400) await trx('token_pairs').insert(rows.slice(start, start + 400));
  });
}

/**
 * Copies of the seed at ids `seed × copy + id`, with new hashes and grant ids; chains keep their parents. One
 * statement per copy, in primary-key order: a parent is written before its child (InnoDB checks the foreign key row by
 * row), and the store reads the seed in that order without sorting it (a statement over several copies had to sort
 * them all in a temporary table first).
 */
export async function writeCopies(db: Database, kind: 'mysql' | 'sqlite', seed: number, copies: number[]): Promise<void> {
  for (const copy of copies) {
    const newId = `(t.id + ${seed * Math.trunc(copy)})`;
    // A key as the product stores it (token-keys.ts): the instant the pair was minted, then hash bits.
    const key = (prefix: string) =>
      kind === 'mysql'
        ? `CONCAT(LPAD(LOWER(HEX(FLOOR(UNIX_TIMESTAMP(t.created_at) * 1000))), 12, '0'), LEFT(SHA2(CONCAT('${prefix}', ${newId}), 256), 52))`
        : "printf('%012x', t.created_at) || lower(hex(randomblob(26)))";
    const grant = kind === 'mysql' ? `CONCAT('fill-', FLOOR((${newId} - 1) / ${CHAIN}))` : `'fill-' || ((${newId} - 1) / ${CHAIN})`;
    await db.raw(
      `INSERT INTO token_pairs (id, grant_id, site_id, client_ref, user_id, access_token_hash, refresh_token_hash, scope, resource, access_expires_at, refresh_expires_at, revoked_at, revoked_reason, parent_pair_id, created_at)
       SELECT ${newId}, ${grant}, t.site_id, t.client_ref, t.user_id, ${key('a')}, CASE WHEN t.refresh_token_hash IS NULL THEN NULL ELSE ${key('r')} END, t.scope, t.resource,
         t.access_expires_at, t.refresh_expires_at, t.revoked_at, t.revoked_reason, CASE WHEN t.parent_pair_id IS NULL THEN NULL ELSE t.parent_pair_id + ${seed * Math.trunc(copy)} END, t.created_at
       FROM token_pairs t WHERE t.id <= ${seed} ORDER BY t.id`,
    );
  }
}

interface Bench {
  userinfo: Target;
  refresh: Target;
}

/** Fresh tokens for one measurement: one access token for userinfo, one refresh pair per connection. */
async function issueTokens(db: Database, owner: Owner, productUrl: string): Promise<Bench> {
  const issue = () => insertPair(db, { grantId: newGrantId(), siteId: owner.site.id, clientRef: owner.clientRef, userId: owner.userId, scopes: SCOPES, resource: owner.site.origin, schoolId: owner.site.id, authTime: new Date() });
  const userinfoPair = await issue();
  const pairs: Array<{ refreshToken: string | null }> = [];
  for (let i = 0; i < CONNECTIONS; i += 1) pairs.push(await issue());
  const clientId = String((await db('oauth_clients').where({ id: owner.clientRef }).first('client_id') as { client_id: string }).client_id);
  const body = (refreshToken: string) => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString();
  let next = 0;
  return {
    userinfo: { url: `${productUrl}/api/oauth/userinfo`, headers: { authorization: `Bearer ${userinfoPair.accessToken}` } },
    // Each connection refreshes its own pair with the same (old) refresh token, as test/bench/oauth.bench.ts does:
    // every request does the full refresh work.
    refresh: {
      url: `${productUrl}/api/oauth/token`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body(pairs[0]?.refreshToken ?? ''),
      setupClient: (client) => client.setBody(body(pairs[next++ % pairs.length]?.refreshToken ?? '')),
    },
  };
}

async function checkAnswers(bench: Bench): Promise<void> {
  for (const target of [bench.userinfo, bench.refresh]) {
    const response = await fetch(target.url, { method: target.method ?? 'GET', headers: target.headers, body: target.body });
    if (response.status !== 200) throw new Error(`${target.url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  }
}

async function countPairs(db: Database): Promise<number> {
  const row = (await db('token_pairs').count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

/** The median run of `runs` by throughput, with the median p99 and every run's rate in the note. */
function point(x: number, runs: LoadFigures[], note: string): ScalePoint {
  const failures = runs.reduce((sum, figures) => sum + figures.failures, 0);
  const kinds = runs.map((figures) => figures.failureKinds).filter(Boolean).join('; ');
  const rates = runs.length > 1 ? `; runs ${runs.map((figures) => figures.requestsPerSecond).join(' / ')} req/s` : '';
  return {
    x,
    value: median(runs.map((figures) => figures.requestsPerSecond)),
    p99Ms: median(runs.map((figures) => figures.p99Ms)),
    note: `${note}${rates}${failures > 0 ? `; ${failures} failed (${kinds})` : ''}`,
  };
}

function growthVerdict(points: ScalePoint[], cappedNote: string): string {
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last || last === first) return 'not enough sizes measured';
  const within = Math.abs(last.value - first.value) / first.value <= 0.15;
  return `within 15% of ${shortCount(first.x)} at ${shortCount(last.x)}: ${within ? 'yes' : 'no'} (${percentFrom(first.value, last.value)}; p99 ${first.p99Ms ?? '?'} → ${last.p99Ms ?? '?'} ms)${cappedNote}`;
}

async function run(context: ScaleContext): Promise<ScaleSeries[]> {
  const plan = sizesFor(context.quick);
  const scratch = await createScratchDatabase(context.kind);
  const product = await startProduct(scratch.url);
  try {
    const { db } = scratch;
    const site = await createSite(db, { origin: product.url, name: 'Scale School', subdomain: 'scale' });
    const member = await makeUser(db, site, ['student'], 'Scale Member');
    const app = await makeClient(db, site, { audience: 'member', confidential: false, scopes: [...SCOPES] });
    const owner: Owner = { site, clientRef: app.client.ref, userId: member.id };
    const fillStarted = performance.now();
    await writeSeed(db, owner, plan.seed);
    // A live pair above every id the copies can take, so the pairs the bench issues (auto-increment) never collide with them.
    const ceiling = plan.seed * (Math.ceil((plan.sizes.at(-1) ?? plan.seed) / plan.seed) + 1);
    await db('token_pairs').insert({ ...pairRow(owner, { accessExpiresAt: new Date(Date.now() + DAY), refreshExpiresAt: new Date(Date.now() + 30 * DAY) }), id: ceiling });
    let rows = plan.seed;
    let fillMs = performance.now() - fillStarted;
    let capped = '';
    const userinfo: ScalePoint[] = [];
    const refresh: ScalePoint[] = [];
    for (const size of plan.sizes) {
      const started = performance.now();
      const grow = async (writer: Database) => {
        while (rows < size) {
          if (fillMs / 1000 > plan.fillBudgetSeconds) break;
          const first = rows / plan.seed;
          const count = Math.min(plan.copiesPerStep, Math.ceil((size - rows) / plan.seed));
          const statementStarted = performance.now();
          await writeCopies(writer, context.kind, plan.seed, Array.from({ length: count }, (_, i) => first + i));
          fillMs += performance.now() - statementStarted;
          rows += count * plan.seed;
        }
      };
      if (size - rows < plan.bulkRows || fillMs / 1000 > plan.fillBudgetSeconds) await grow(db);
      // A large step: without the secondary indexes, then built again from their own definitions (token-fill.ts).
      else {
        // Not `fillMs += await …`: that would add the rebuild to the value read before grow's own additions.
        const rebuildMs = await withoutSecondaryIndexes(db, context.kind, 'token_pairs', () => bulkSession(db, context.kind, grow));
        fillMs += rebuildMs;
      }
      if (rows < size) {
        const rate = rows / (fillMs / 1000);
        capped = `; ${shortCount(size)} did not fit the fill budget of ${plan.fillBudgetSeconds} s on this store (filled at ${Math.round(rate)} rows/s: ${shortCount(size)} would take ${Math.round(size / rate / 60)} min), largest measured ${shortCount(rows)}`;
        if (userinfo.at(-1)?.x === rows) break;
      }
      context.log(`tokens ${context.kind}: ${rows} rows (filled in ${seconds(started)}), measuring`);
      const bench = await issueTokens(db, owner, product.url);
      await checkAnswers(bench);
      // Unrecorded warm-up runs: longer for the first size, which the fresh process also pays JIT compilation for.
      const warmUp = userinfo.length === 0 ? plan.firstWarmUpSeconds : 1;
      await load(bench.userinfo, { connections: CONNECTIONS, seconds: warmUp });
      await load(bench.refresh, { connections: CONNECTIONS, seconds: warmUp });
      // Short runs taking turns, the median kept: a burst of other work on the two cores moves one run, not the figure.
      const userinfoRuns: LoadFigures[] = [];
      const refreshRuns: LoadFigures[] = [];
      for (let round = 0; round < plan.rounds; round += 1) {
        userinfoRuns.push(await load(bench.userinfo, { connections: CONNECTIONS, seconds: plan.seconds }));
        refreshRuns.push(await load(bench.refresh, { connections: CONNECTIONS, seconds: plan.seconds }));
      }
      const fillNote = `fill ${(fillMs / 1000).toFixed(0)} s so far`;
      userinfo.push(point(rows, userinfoRuns, fillNote));
      refresh.push(point(rows, refreshRuns, fillNote));
      if (capped) break;
    }

    // The prune, in batches, at the largest size, while userinfo is loaded: `schoolgate prune` in a process of its
    // own, as an operator or another instance would run it (and so that a synchronous driver, better-sqlite3, never
    // holds up the load generator here). It is stopped after the windows; the rows it deleted are counted.
    const bench = await issueTokens(db, owner, product.url);
    await load(bench.userinfo, { connections: CONNECTIONS, seconds: 1 });
    // As many windows without the prune as with it, right before it: the worst of ten windows is above a single
    // window's p99 by itself, so the two are compared like for like.
    const window = async () => {
      const figures = await load(bench.userinfo, { connections: CONNECTIONS, seconds: plan.pruneWindowSeconds });
      return { p99Ms: figures.p99Ms, note: `${figures.requestsPerSecond} req/s${figures.failures > 0 ? `, ${figures.failures} failed (${figures.failureKinds})` : ''}` };
    };
    const pruneSeries: ScalePoint[] = [];
    for (let index = plan.pruneWindows; index >= 1; index -= 1) {
      const { p99Ms, note } = await window();
      pruneSeries.push({ x: -index * plan.pruneWindowSeconds, value: p99Ms, note: `no prune: ${note}` });
    }
    const idle = pruneSeries.map((point) => point.value);
    const before = await countPairs(db);
    const spawnedAt = Date.now();
    const pruner = spawn(process.execPath, [CLI_ENTRY, 'prune', '--duty-percent', String(PRUNE_DUTY_PERCENT)], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...TEST_KEY_ENCRYPTION_ENV, DATABASE_URL: scratch.url, SCHOOLGATE_PRUNE_RETENTION_DAYS: String(DEFAULT_RETENTION_DAYS) },
      stdio: 'ignore',
    });
    let exitedAt: number | undefined;
    const exited = new Promise<void>((resolve) => pruner.once('exit', () => resolve(void (exitedAt = Date.now()))));
    // The windows start once the prune holds its lease: the CLI's start-up (loading its modules) is CPU the requests
    // would lose to the bench's own start-up rather than to the prune.
    let leaseTakenAt: number | undefined;
    while (leaseTakenAt === undefined && exitedAt === undefined) {
      const startedAt = (await readLease(db, PRUNE_JOB))?.lastStartedAt?.getTime();
      if (startedAt !== undefined && startedAt >= spawnedAt - 1000) leaseTakenAt = startedAt;
      else await sleep(50);
    }
    const pruneStarted = Date.now();
    const pruning: number[] = [];
    for (let index = 1; index <= plan.pruneWindows; index += 1) {
      const { p99Ms, note } = await window();
      pruning.push(p99Ms);
      pruneSeries.push({ x: Math.round((Date.now() - pruneStarted) / 1000), value: p99Ms, note });
    }
    const finished = exitedAt !== undefined;
    const stoppedAt = Date.now();
    if (!finished) pruner.kill('SIGKILL');
    await exited;
    const pruneSeconds = ((exitedAt ?? stoppedAt) - pruneStarted) / 1000;
    const deleted = before - (await countPairs(db));
    // The rate counts from when the prune took its lease, not from the spawn.
    const deletingSeconds = Math.max(0.001, ((exitedAt ?? stoppedAt) - (leaseTakenAt ?? pruneStarted)) / 1000);
    const deletedRate = deleted / deletingSeconds;
    const prunable = Math.round(rows * PRUNABLE_SHARE);
    const [idleWorst, worst] = [Math.max(...idle), Math.max(...pruning)];
    const withinTwice = worst <= 2 * Math.max(idleWorst, 1);
    const pruneVerdict =
      `at ${shortCount(rows)} rows, batches of ${DEFAULT_BATCH_SIZE} at a ${PRUNE_DUTY_PERCENT}% duty cycle, p99 ≤ 2× idle while pruning: ${withinTwice ? 'yes' : 'no'} ` +
      `(worst ${plan.pruneWindowSeconds} s window ${idleWorst} ms without the prune, ${worst} ms with it; median ${median(idle)} → ${median(pruning)} ms); ` +
      `${finished ? 'the prune finished in' : 'stopped after'} ${pruneSeconds.toFixed(0)} s, ${deleted} rows deleted in its ${deletingSeconds.toFixed(0)} s under the lease ≈ ${Math.round(deletedRate)} rows/s: the ${shortCount(prunable)} expired rows would take ≈ ${Math.max(1, Math.round(prunable / Math.max(deletedRate, 1) / 60))} min`;
    context.log(`tokens ${context.kind}: prune ${pruneVerdict}`);

    const store = context.kind;
    return [
      { id: 'tokens-userinfo', title: 'userinfo throughput as token_pairs grows', xLabel: 'rows in token_pairs', yLabel: 'req/s', logX: true, store, points: userinfo, verdict: growthVerdict(userinfo, capped) },
      { id: 'tokens-refresh', title: 'refresh grant throughput as token_pairs grows', xLabel: 'rows in token_pairs', yLabel: 'req/s', logX: true, store, points: refresh, verdict: growthVerdict(refresh, capped) },
      {
        id: 'tokens-prune',
        title: 'userinfo p99 while the prune deletes expired pairs',
        xLabel: 'seconds since the prune started (before 0: without it)',
        yLabel: 'userinfo p99 ms',
        store,
        points: pruneSeries,
        verdict: pruneVerdict,
      },
    ];
  } finally {
    await product.stop();
    await scratch.drop();
  }
}

export const tokensScenario: ScaleScenario = { name: 'tokens', run };
