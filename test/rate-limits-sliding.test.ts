import { expect } from 'chai';
import { currentHits, hit, release } from '../src/db/rate-limit.js';
import { describeEachDatabase } from './support/databases.js';

const WINDOW_SECONDS = 600;
const LIMIT = 20;
/** A window boundary well in the past, so every time below is one the test chooses (the counter takes `now`). */
const BOUNDARY = Date.UTC(2026, 0, 5, 9, 0, 0);
const at = (secondsFromBoundary: number) => new Date(BOUNDARY + secondsFromBoundary * 1000);

/**
 * The counter behind every limit (src/db/rate-limit.ts) slides: the previous fixed window weighs by the part of it the
 * sliding window still covers, so hits spread across a boundary still count; Retry-After says when one more hit fits.
 */
describeEachDatabase('rate-limit counters slide', (scratch) => {
  const db = () => scratch().db;
  let bucket = 0;
  const fresh = () => `test:sliding:${(bucket += 1)}`;

  async function hits(name: string, count: number, seconds: number) {
    const outcomes = [];
    for (let index = 0; index < count; index += 1) outcomes.push(await hit(db(), name, WINDOW_SECONDS, LIMIT, at(seconds)));
    return outcomes;
  }

  it('hits spread across a boundary still count: 15 just before it leave room for 6, not 20, one minute after', async () => {
    const name = fresh();
    expect((await hits(name, 15, -60)).every((outcome) => outcome.allowed)).to.equal(true);
    // One minute into the new window the previous one weighs 9/10: 15 × 0.9 = 13.5, so 6 more fit (19.5), the 7th does not.
    const after = await hits(name, 7, 60);
    expect(after.map((outcome) => outcome.allowed)).to.deep.equal([true, true, true, true, true, true, false]);
    expect(after.at(-1)).to.include({ hits: 7, limit: LIMIT });
    expect(after.at(-1)!.count).to.be.closeTo(20.5, 1e-9);
    // One more fits once 15 × weight ≤ 20 - 1 - 7 = 12, i.e. at 2 minutes into the window: 60 s from now.
    expect(after.at(-1)!.retryAfterSeconds).to.equal(60);
    expect(await currentHits(db(), name, WINDOW_SECONDS, at(60))).to.be.closeTo(20.5, 1e-9);
    // Then it does: 8 + 15 × (1 - 120/600) = 20.
    const retried = await hit(db(), name, WINDOW_SECONDS, LIMIT, at(120));
    expect(retried.allowed).to.equal(true);
    expect(retried.count).to.be.closeTo(20, 1e-9);
  });

  it('a full window refuses into the next one, with the wait to when a hit fits again', async () => {
    const name = fresh();
    const first = await hits(name, LIMIT + 1, 300);
    expect(first.filter((outcome) => !outcome.allowed)).to.have.length(1);
    // 21 in this window: the next window must get to 1 - 19/21 of its length before 1 + 21 × weight ≤ 20.
    const expected = 300 + Math.ceil((1 - (LIMIT - 1) / (LIMIT + 1)) * WINDOW_SECONDS);
    expect(first.at(-1)!.retryAfterSeconds).to.equal(expected);
    expect((await hit(db(), name, WINDOW_SECONDS, LIMIT, at(WINDOW_SECONDS + 1))).allowed).to.equal(false);
    expect((await hit(db(), name, WINDOW_SECONDS, LIMIT, at(2 * WINDOW_SECONDS - 1))).allowed).to.equal(true);
  });

  it('fixed windows would have reset at the boundary; the sliding count never drops to zero there', async () => {
    const name = fresh();
    await hits(name, LIMIT, -1);
    expect((await hit(db(), name, WINDOW_SECONDS, LIMIT, at(1))).allowed).to.equal(false);
    expect(await currentHits(db(), name, WINDOW_SECONDS, at(2))).to.be.above(LIMIT);
  });

  it('rows live while they weigh: the previous window is kept until the next one ends, then dropped', async () => {
    const name = fresh();
    await hits(name, 3, 10);
    const rows = (await db()('rate_limit_counters').where({ bucket: name }).select('expires_at')) as Array<{ expires_at: Date | string | number }>;
    expect(rows.map((row) => new Date(row.expires_at).getTime())).to.deep.equal([at(2 * WINDOW_SECONDS).getTime()]);
    // Two windows later the first hit of that window drops the row that no longer weighs.
    await hit(db(), name, WINDOW_SECONDS, LIMIT, at(2 * WINDOW_SECONDS + 5));
    expect(await db()('rate_limit_counters').where({ bucket: name }).count({ n: '*' })).to.deep.equal([{ n: 1 }]);
  });

  it('release gives back several hits at once and never goes below zero', async () => {
    const name = fresh();
    await hits(name, 4, 30);
    await release(db(), name, WINDOW_SECONDS, 3, at(31));
    expect(await currentHits(db(), name, WINDOW_SECONDS, at(31))).to.equal(1);
    await release(db(), name, WINDOW_SECONDS, 5, at(32));
    expect(await currentHits(db(), name, WINDOW_SECONDS, at(32))).to.equal(0);
  });
});
