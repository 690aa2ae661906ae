/**
 * The prune on a large table, run by hand: `npx tsx test/bench/prune.bench.ts [sqlite|mysql] [expired] [live]`.
 * Fills a scratch database with `expired` token pairs (default 100,000) past the retention, in rotation chains of
 * five (four rotated, the last one's refresh token expired), next to `live` pairs (default 10,000), then times one
 * prune and prints the rows before and after, and the longest single batch. The scratch database is dropped after.
 */
import { createScratchDatabase, type DatabaseKind } from '../support/databases.js';
import { ago, countRows, DAY, makeOwner, pairRow, type Owner } from '../support/housekeeping-fixtures.js';
import { prune } from '../../src/housekeeping/prune.js';
import type { Database } from '../../src/db/connection.js';

const kind: DatabaseKind = process.argv[2] === 'mysql' ? 'mysql' : 'sqlite';
const EXPIRED = Number(process.argv[3] ?? 100_000);
const LIVE = Number(process.argv[4] ?? 10_000);
const CHAIN = 5;
// SQLite caps a multi-row INSERT (a compound SELECT under knex) at 500 rows.
const CHUNK = kind === 'sqlite' ? 400 : 1000;

async function fill(db: Database, owner: Owner): Promise<void> {
  let rows: Array<Record<string, unknown>> = [];
  const flush = async () => {
    if (rows.length > 0) await db('token_pairs').insert(rows);
    rows = [];
  };
  for (let id = 1; id <= EXPIRED; id += 1) {
    const position = (id - 1) % CHAIN;
    const last = position === CHAIN - 1;
    const row = pairRow(owner, { accessExpiresAt: ago(40 * DAY), refreshExpiresAt: ago(10 * DAY), revokedAt: last ? null : ago(12 * DAY), grantId: `bench-${Math.floor((id - 1) / CHAIN)}` });
    rows.push({ ...row, id, parent_pair_id: position === 0 ? null : id - 1 });
    if (rows.length === CHUNK) await flush();
  }
  for (let i = 0; i < LIVE; i += 1) {
    rows.push({ ...pairRow(owner, { accessExpiresAt: new Date(Date.now() + 3_600_000), refreshExpiresAt: new Date(Date.now() + 30 * DAY) }), id: EXPIRED + 1 + i });
    if (rows.length === CHUNK) await flush();
  }
  await flush();
}

const scratch = await createScratchDatabase(kind);
try {
  const { db } = scratch;
  const owner = await makeOwner(db, 'bench');
  const filling = performance.now();
  await fill(db, owner);
  process.stdout.write(`${kind}: inserted ${EXPIRED} expired + ${LIVE} live pairs in ${((performance.now() - filling) / 1000).toFixed(1)} s\n`);
  const before = await countRows(db, 'token_pairs');
  const batchMs: number[] = [];
  let last: number | undefined;
  // No pause between batches: the figures are the batches' own cost (the pause would double the run at the default).
  const report = await prune(db, {
    dutyPercent: 100,
    beforeBatch: async () => {
      const now = performance.now();
      if (last !== undefined) batchMs.push(now - last);
      last = now;
    },
  });
  const after = await countRows(db, 'token_pairs');
  batchMs.sort((a, b) => a - b);
  const median = batchMs[Math.floor(batchMs.length / 2)] ?? 0;
  process.stdout.write(
    `${kind}: token_pairs before ${before}, after ${after}; deleted ${report.deleted.token_pairs} in ${(report.durationMs / 1000).toFixed(2)} s ` +
      `(${batchMs.length + 1} batches of up to ${report.batchSize}; per batch median ${median.toFixed(0)} ms, longest ${(batchMs.at(-1) ?? 0).toFixed(0)} ms)\n`,
  );
} finally {
  await scratch.drop();
}
