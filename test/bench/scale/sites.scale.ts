/**
 * bench:scale, sites: one process serving 1, 1,000 and 10,000 sites. At each size the product is started afresh over
 * a database holding that many sites (start-up time), every site is asked once so the site cache fills, then OIDC
 * discovery (`/.well-known/openid-configuration`, which needs nothing but the request's site) is loaded with requests
 * spread round-robin over all the sites by their Host header, interleaved with the same load on one site only: req/s
 * and p99, and the product's resident memory after the load, from which the memory per cached site follows.
 *
 * The site cache (src/sites/site-cache.ts) keeps an entry per origin asked for, at most SCHOOLGATE_SITE_CACHE_SIZE
 * (10,000 by default); once older than SCHOOLGATE_SITE_CACHE_SECONDS (5) an entry is still served while one batched
 * background read refreshes it, for as long again, so a request reads its site only when the load comes back to it
 * later than twice the lifetime. The round robin goes on from one load to the next, so every site is asked as often.
 */
import autocannon from 'autocannon';
import type { Knex } from 'knex';
import { createScratchDatabase } from '../../support/databases.js';
import type { ScaleContext, ScaleScenario, ScaleSeries } from './types.js';
import { percentFrom, startProduct } from './load.js';
import { median, request, residentMemoryMb, sleep } from './probes.js';

const FULL_SIZES = [1, 1000, 10000];
const QUICK_SIZES = [1, 50];
const CONNECTIONS = 16;
/** Target (issue): request cost flat within 15% of one site; at most 64 KB more resident memory per cached site. */
const FLAT_WITHIN = 0.15;
const KB_PER_SITE_TARGET = 64;

const host = (index: number) => `s${index}.scale.test`;

/** Sites s0 … s(to − 1), as createSite would write them, added in multi-row inserts. */
async function addSites(db: Knex, from: number, to: number): Promise<void> {
  const now = new Date();
  const rows = Array.from({ length: to - from }, (_, offset) => ({
    origin: `http://${host(from + offset)}`,
    subdomain: `s${from + offset}`,
    name: `Scale School ${from + offset}`,
    timezone: 'UTC',
    default_currency: 'USD',
    mcp_connections_enabled: false,
    open_registration: false,
    created_at: now,
    updated_at: now,
  }));
  await db.transaction(async (trx) => {
    for (let start = 0; start < rows.length; start += 500) await trx('sites').insert(rows.slice(start, start + 500));
  });
}

/** Where the round robin over each number of sites goes on: a load starting again at s0 would ask the last sites less. */
const nextSite = new Map<number, number>();

/** Discovery asked of every site in turn, by Host header, on `connections` connections. */
async function spreadLoad(url: string, sites: number, options: { duration?: number; amount?: number }) {
  let next = nextSite.get(sites) ?? 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    ...options,
    requests: [
      {
        method: 'GET',
        path: '/.well-known/openid-configuration',
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, host: host(next++ % sites) } }),
      },
    ],
  });
  nextSite.set(sites, next % sites);
  return result;
}

async function run(context: ScaleContext): Promise<ScaleSeries[]> {
  const sizes = context.quick ? QUICK_SIZES : FULL_SIZES;
  const seconds = context.quick ? 1 : 3;
  const scratch = await createScratchDatabase(context.kind);
  const points: Array<{ sites: number; rate: number; oneSiteRate: number; p99: number; startupMs: number; rssMb: number; failures: number }> = [];
  try {
    let present = 0;
    for (const sites of sizes) {
      await addSites(scratch.db, present, sites);
      present = sites;
      const spawned = performance.now();
      const product = await startProduct(scratch.url);
      const startupMs = Math.round(performance.now() - spawned);
      try {
        const probe = await request(`${product.url}/.well-known/openid-configuration`, { headers: { host: host(sites - 1) } });
        if (probe.status !== 200) throw new Error(`discovery of ${host(sites - 1)} answered ${probe.status}`);
        // Fill the cache: every site once, then a warm-up at the measured rate.
        await spreadLoad(product.url, sites, { amount: Math.max(sites, CONNECTIONS) });
        await spreadLoad(product.url, sites, { duration: context.quick ? 1 : 2 });
        // Spread over every site, next to one site only in the same process, interleaved: a restarted process on a
        // shared machine varies more between runs than the number of sites changes the cost.
        const spread: autocannon.Result[] = [];
        const oneSite: autocannon.Result[] = [];
        // The order alternates, so whatever the first run of a pair pays hits both sides alike.
        for (let pair = 0; pair < 2; pair += 1) {
          if (pair % 2 === 1) oneSite.push(await spreadLoad(product.url, 1, { duration: seconds }));
          spread.push(await spreadLoad(product.url, sites, { duration: seconds }));
          if (pair % 2 === 0) oneSite.push(await spreadLoad(product.url, 1, { duration: seconds }));
        }
        await sleep(1000);
        const rssMb = residentMemoryMb(product.child.pid).rss;
        const rate = Math.round(median(spread.map((result) => result.requests.average)));
        const oneSiteRate = Math.round(median(oneSite.map((result) => result.requests.average)));
        const p99 = Math.max(...spread.map((result) => result.latency.p99));
        const failures = [...spread, ...oneSite].reduce((sum, result) => sum + result.non2xx + result.errors, 0);
        points.push({ sites, rate, oneSiteRate, p99, startupMs, rssMb, failures });
        context.log(`sites ${sites}: ${rate} req/s spread over all (one site in the same process: ${oneSiteRate}), p99 ${p99} ms, start-up ${startupMs} ms, RSS ${rssMb.toFixed(0)} MB, non-2xx/errors ${failures}`);
      } finally {
        await product.stop();
      }
    }
  } finally {
    await scratch.drop();
  }

  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return [];
  const flat = last.rate >= last.oneSiteRate * (1 - FLAT_WITHIN);
  const kbPerSite = ((last.rssMb - first.rssMb) * 1024) / Math.max(1, last.sites - first.sites);
  const failures = points.reduce((sum, point) => sum + point.failures, 0);
  const store = context.kind;
  return [
    {
      id: 'sites-request-rate',
      title: 'OIDC discovery spread over every site of one process',
      xLabel: 'sites in the process',
      yLabel: 'req/s',
      logX: true,
      store,
      points: points.map((point) => ({ x: point.sites, value: point.rate, p99Ms: point.p99, note: `one site in the same process: ${point.oneSiteRate} req/s${point.failures > 0 ? `; ${point.failures} non-2xx/errors` : ''}` })),
      verdict: `flat within 15%: ${flat ? 'yes' : 'NO'} (spread over ${last.sites.toLocaleString('en')} sites ${percentFrom(last.oneSiteRate, last.rate)} against one site in the same process; ${percentFrom(first.rate, last.rate)} against the 1-site process)${failures > 0 ? `; ${failures} failed requests` : ''}`,
    },
    {
      id: 'sites-startup',
      title: 'Start-up time with the sites in the database',
      xLabel: 'sites in the database',
      yLabel: 'ms from spawn to listening',
      logX: true,
      store,
      points: points.map((point) => ({ x: point.sites, value: point.startupMs })),
      verdict: `${percentFrom(first.startupMs, last.startupMs)} at ${last.sites.toLocaleString('en')} sites (loading the built modules included)`,
    },
    {
      id: 'sites-memory',
      title: 'Resident memory after serving every site',
      xLabel: 'sites cached',
      yLabel: 'RSS MB',
      logX: true,
      store,
      points: points.map((point) => ({ x: point.sites, value: Math.round(point.rssMb * 10) / 10 })),
      verdict: `${kbPerSite.toFixed(1)} KB per additional cached site (target ≤ ${KB_PER_SITE_TARGET} KB: ${kbPerSite <= KB_PER_SITE_TARGET ? 'met' : 'NOT met'}); the site cache keeps at most SCHOOLGATE_SITE_CACHE_SIZE sites (10,000 by default)`,
    },
  ];
}

export const sitesScenario: ScaleScenario = { name: 'sites', run };
