import { expect } from 'chai';
import { prune } from '../src/housekeeping/prune.js';
import { plotSvg, niceTicks } from './bench/scale/plot.js';
import { merge, scaleMarkdown, type MeasuredSeries } from './bench/scale/report.js';
import { writeCopies, writeSeed } from './bench/scale/tokens.scale.js';
import { describeEachDatabase } from './support/databases.js';
import { makeOwner } from './support/housekeeping-fixtures.js';

/** npm run bench:scale's own machinery (no timing here: the figures live in the benchmark). */

function series(id: string, store: 'mysql' | 'sqlite', values: number[]): MeasuredSeries {
  return {
    id,
    title: `${id} title`,
    xLabel: 'rows',
    yLabel: 'req/s',
    logX: true,
    store,
    points: values.map((value, index) => ({ x: 10_000 * 10 ** index, value, p99Ms: 5 + index })),
    verdict: `${id} ${store} verdict`,
    measuredAt: '2026-01-01T00:00:00.000Z',
    loadAverage: [1, 2, 3],
    cores: 2,
    node: 'v20',
    scenarioSeconds: 10,
  };
}

describe('bench:scale report', () => {
  it('a partial run replaces only the series it measured, per id and store', () => {
    const stored = [series('a', 'mysql', [1]), series('a', 'sqlite', [2]), series('b', 'mysql', [3])];
    const merged = merge(stored, [series('a', 'sqlite', [20]), series('c', 'sqlite', [30])]);
    expect(merged.map((one) => [one.id, one.store, one.points[0]?.value])).to.deep.equal([
      ['a', 'mysql', 1],
      ['a', 'sqlite', 20],
      ['b', 'mysql', 3],
      ['c', 'sqlite', 30],
    ]);
  });

  it('writes a table and the verdict per store, and a plot with both stores, log ticks and a legend', () => {
    const both = [series('tokens', 'mysql', [900, 880, 860]), series('tokens', 'sqlite', [1200, 1190, 1100])];
    const markdown = scaleMarkdown(both);
    expect(markdown).to.include('![tokens title](scale-tokens.svg)').and.include('tokens mysql verdict').and.include('| 1M | 860 | 7 |').and.include('load average 1 2 3');
    const svg = plotSvg(both);
    expect(svg).to.match(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg.match(/<polyline /g)).to.have.length(2);
    expect(svg).to.include('>MySQL/MariaDB</text>').and.include('>SQLite</text>').and.include('>10k</text>').and.include('>1M</text>').and.include('(log scale)');
    expect(niceTicks(0, 1230)).to.deep.equal([0, 500, 1000, 1500]);
  });
});

describeEachDatabase('bench:scale token rows', (scratch) => {
  it('copies of the seed are distinct pairs in rotation chains, and the prune deletes nine in ten of them', async () => {
    const { db, kind } = scratch();
    const owner = await makeOwner(db, 'scale');
    await writeSeed(db, owner, 50);
    await writeCopies(db, kind, 50, [1, 2]);
    const rows = (await db('token_pairs').select('id', 'access_token_hash', 'refresh_token_hash', 'grant_id', 'parent_pair_id')) as Array<{ id: number; access_token_hash: string; refresh_token_hash: string | null; grant_id: string; parent_pair_id: number | null }>;
    expect(rows).to.have.length(150);
    expect(new Set(rows.map((row) => row.access_token_hash)).size).to.equal(150);
    expect(new Set(rows.map((row) => row.refresh_token_hash)).size).to.equal(150);
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.access_token_hash))).to.equal(true);
    // Chains of five: the copy of pair 52 (second of its chain) has the copy of pair 51 as its parent.
    expect(rows.find((row) => row.id === 102)?.parent_pair_id).to.equal(101);
    expect(new Set(rows.map((row) => row.grant_id)).size).to.equal(30);
    const report = await prune(db, { dryRun: true });
    expect(report.deleted.token_pairs).to.equal(135);
  });
});
