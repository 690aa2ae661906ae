/**
 * bench:scale, connections: userinfo and the member API's full syllabus (test/bench/syllabus-data.ts: 20 courses × 50
 * lectures, about 100 KB) at 16, 64 and 256 concurrent connections. More connections than the pool has must queue,
 * not fail: throughput stays within 10% of the best level, every answer is a 2xx, and p99 grows with the queue.
 */
import { findUserByEmail } from '../../../src/accounts/users.js';
import { importSiteDocument } from '../../../src/import/import-site.js';
import { createSite } from '../../../src/sites/sites.js';
import { variantProfile } from '../../../src/variant.js';
import { createScratchDatabase } from '../../support/databases.js';
import { memberToken } from '../../support/member-api.js';
import type { Target } from '../harness.js';
import { BENCH_MEMBER_EMAIL, SYLLABUS_QUERY, syllabusDocument } from '../syllabus-data.js';
import { load, percentFrom, startProduct, VARIANT } from './load.js';
import type { ScaleContext, ScalePoint, ScaleScenario, ScaleSeries } from './types.js';

function verdict(points: ScalePoint[]): string {
  const best = points.reduce((top, candidate) => (candidate.value > top.value ? candidate : top), points[0] ?? { x: 0, value: 0 });
  const worst = points.reduce((low, candidate) => (candidate.value < low.value ? candidate : low), best);
  const failed = points.reduce((sum, candidate) => sum + Number(/(\d+) failed/.exec(candidate.note ?? '')?.[1] ?? 0), 0);
  const within = worst.value >= 0.9 * best.value;
  return `within 10% of the best (${best.value} req/s at ${best.x}): ${within ? 'yes' : 'no'} (lowest ${percentFrom(best.value, worst.value)} at ${worst.x}); failed requests: ${failed === 0 ? 'none' : failed}; p99 ${points.map((candidate) => `${candidate.p99Ms ?? '?'}`).join(' / ')} ms`;
}

async function run(context: ScaleContext): Promise<ScaleSeries[]> {
  const levels = context.quick ? [4, 16] : [16, 64, 256];
  // Long enough for the queue to reach its steady state: three times a request's wait for its turn (connections ÷
  // the rate of the warm-up), at least 4 s and at most 10. On a path answering 60–100 req/s, a request waits 2.5–4 s
  // at 256 connections, so a 4 s run would measure mostly the first requests' wait; userinfo's is a tenth of a second.
  const runSeconds = (connections: number, warmUpRate: number) => (context.quick ? 1 : Math.min(10, Math.max(4, Math.ceil((3 * connections) / Math.max(warmUpRate, 1)))));
  const scratch = await createScratchDatabase(context.kind);
  const product = await startProduct(scratch.url);
  try {
    const { db } = scratch;
    const site = await createSite(db, { origin: product.url, name: 'Scale School', subdomain: 'scale' });
    await importSiteDocument(db, syllabusDocument(site.origin, new Date()));
    const member = await findUserByEmail(db, BENCH_MEMBER_EMAIL);
    if (!member) throw new Error('the bench member was not imported');
    const token = await memberToken(db, site, member);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const targets: Array<{ id: string; title: string; target: Target }> = [
      { id: 'connections-userinfo', title: 'userinfo throughput by concurrent connections', target: { url: `${product.url}/api/oauth/userinfo`, headers } },
      {
        id: 'connections-syllabus',
        title: 'member GraphQL syllabus (~100 KB) throughput by concurrent connections',
        target: { url: `${product.url}${variantProfile(VARIANT).memberGraphql.path}`, method: 'POST', headers, body: JSON.stringify({ query: SYLLABUS_QUERY }) },
      },
    ];
    const series: ScaleSeries[] = [];
    for (const { id, title, target } of targets) {
      const answer = await fetch(target.url, { method: target.method ?? 'GET', headers: target.headers, body: target.body });
      const text = await answer.text();
      if (answer.status !== 200 || text.includes('"errors"')) throw new Error(`${target.url} answered ${answer.status}: ${text.slice(0, 300)}`);
      const points: ScalePoint[] = [];
      for (const connections of levels) {
        const warmUp = await load(target, { connections, seconds: context.quick ? 1 : 2 });
        const figures = await load(target, { connections, seconds: runSeconds(connections, warmUp.requestsPerSecond) });
        context.log(`connections ${context.kind}: ${id} at ${connections}: ${figures.requestsPerSecond} req/s, p99 ${figures.p99Ms} ms, ${figures.failures} failed${figures.failures > 0 ? ` (${figures.failureKinds})` : ''}`);
        points.push({ x: connections, value: figures.requestsPerSecond, p99Ms: figures.p99Ms, note: `p50 ${figures.p50Ms} ms${figures.failures > 0 ? `; ${figures.failures} failed (${figures.failureKinds})` : ''}` });
      }
      series.push({ id, title, xLabel: 'concurrent connections', yLabel: 'req/s', logX: true, store: context.kind, points, verdict: verdict(points) });
    }
    return series;
  } finally {
    await product.stop();
    await scratch.drop();
  }
}

export const connectionsScenario: ScaleScenario = { name: 'connections', run };
