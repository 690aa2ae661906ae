/**
 * npm run bench -- --memory: the product's resident memory as `npm start` runs it (built, `node dist/src/main.js`),
 * idle after start-up (sampled for a minute) and under BENCH_MEMORY_SECONDS (default 180) of mixed load at BENCH_CONNECTIONS connections:
 * each connection alternates userinfo and the full syllabus query (20 courses × 50 lectures). Samples RSS from
 * /proc every BENCH_MEMORY_SAMPLE_SECONDS (5); the peak is the kernel's high-water mark (VmHWM), not a sample.
 */
import fs from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { findUserByEmail } from '../../src/accounts/users.js';
import { variantProfile } from '../../src/variant.js';
import { importSiteDocument } from '../../src/import/import-site.js';
import { insertPair, newGrantId } from '../../src/oauth/tokens/store.js';
import { createSite } from '../../src/sites/sites.js';
import { createScratchDatabase, type DatabaseKind } from '../support/databases.js';
import { memberToken } from '../support/member-api.js';
import { makeClient } from '../support/oauth-fixtures.js';
import { CONNECTIONS, PRODUCT_ENTRY, PRODUCT_NODE_FLAGS, startProcess } from './harness.js';
import { BENCH_MEMBER_EMAIL, SYLLABUS_QUERY, syllabusDocument } from './syllabus-data.js';

const LOAD_SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 180);
const SAMPLE_SECONDS = Number(process.env.BENCH_MEMORY_SAMPLE_SECONDS ?? 5);
const IDLE_SECONDS = 60;
/** Targets: resident memory when idle after start-up, and at its highest under the load. */
const IDLE_TARGET_MB = 120;
const PEAK_TARGET_MB = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** VmRSS (now) and VmHWM (highest so far) of a process, in MB. */
function residentMemory(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kilobytes('VmRSS') / 1024, peak: kilobytes('VmHWM') / 1024 };
}

const mb = (value: number) => value.toFixed(0);
const verdict = (value: number, target: number) => `${mb(value)} MB (target ≤ ${target} MB: ${value <= target ? 'met' : 'NOT met'})`;

async function measure(kind: DatabaseKind, variant: 'A' | 'B'): Promise<void> {
  const scratch = await createScratchDatabase(kind);
  const product = await startProcess(PRODUCT_ENTRY, { DATABASE_URL: scratch.url, SCHOOLGATE_VARIANT: variant, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'production', LOG_LEVEL: 'info', SCHOOLGATE_DEMO: 'false', SCHOOLGATE_PRUNE_INTERVAL_SECONDS: '0' }, PRODUCT_NODE_FLAGS);
  const pid = product.child.pid;
  if (pid === undefined) throw new Error('the product process has no pid');
  try {
    // Idle: start-up done, nothing served yet. V8 gives the start-up garbage back only once the process has been idle
    // for a while (its memory reducer), so the idle figure is the one after IDLE_SECONDS, with the curve before it.
    const idleCurve: Array<{ second: number; rss: number }> = [];
    for (let second = 5; second <= IDLE_SECONDS; second += 5) {
      await sleep(5000);
      idleCurve.push({ second, rss: residentMemory(pid).rss });
    }
    const idle = residentMemory(pid);

    const site = await createSite(scratch.db, { origin: product.url, name: 'Bench School', subdomain: 'bench' });
    await importSiteDocument(scratch.db, syllabusDocument(site.origin, new Date()));
    const member = await findUserByEmail(scratch.db, BENCH_MEMBER_EMAIL);
    if (!member) throw new Error('the bench member was not imported');
    const syllabusToken = await memberToken(scratch.db, site, member, 'account:read');
    const app = await makeClient(scratch.db, site, { audience: 'member', confidential: false, scopes: ['openid', 'profile', 'email'] });
    const userinfoToken = (await insertPair(scratch.db, { grantId: newGrantId(), siteId: site.id, clientRef: app.client.ref, userId: member.id, scopes: ['openid', 'profile', 'email'], resource: site.origin, schoolId: site.id, authTime: new Date() })).accessToken;

    const samples: Array<{ second: number; rss: number }> = [];
    const started = Date.now();
    const sampler = setInterval(() => samples.push({ second: Math.round((Date.now() - started) / 1000), rss: residentMemory(pid).rss }), SAMPLE_SECONDS * 1000);
    const load = await autocannon({
      url: product.url,
      connections: CONNECTIONS,
      duration: LOAD_SECONDS,
      requests: [
        { method: 'GET', path: '/api/oauth/userinfo', headers: { authorization: `Bearer ${userinfoToken}` } },
        { method: 'POST', path: variantProfile(variant).memberGraphql.path, headers: { authorization: `Bearer ${syllabusToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: SYLLABUS_QUERY }) },
      ],
    });
    clearInterval(sampler);
    await sleep(10000);
    const after = residentMemory(pid);

    const curve = (points: Array<{ second: number; rss: number }>) => points.map((point) => `${point.second}: ${mb(point.rss)}`).join(', ');
    process.stdout.write(`\nschoolgate memory (${kind}, variant ${variant}): node ${[...PRODUCT_NODE_FLAGS, PRODUCT_ENTRY].join(' ')}, ${CONNECTIONS} connections, ${LOAD_SECONDS}s of userinfo + syllabus, Node ${process.version}\n\n`);
    process.stdout.write(`RSS while idle after start-up (s: MB): ${curve(idleCurve)}\n`);
    process.stdout.write(`RSS under load, every ${SAMPLE_SECONDS}s (s: MB): ${curve(samples)}\n\n`);
    process.stdout.write(`| measure | value |\n| --- | --- |\n`);
    process.stdout.write(`| idle, ${IDLE_SECONDS}s after start-up | ${verdict(idle.rss, IDLE_TARGET_MB)} |\n`);
    process.stdout.write(`| peak under load (VmHWM) | ${verdict(after.peak, PEAK_TARGET_MB)} |\n`);
    process.stdout.write(`| 10 s after the load | ${mb(after.rss)} MB |\n`);
    process.stdout.write(`| requests served | ${load.requests.total} (${Math.round(load.requests.average)} req/s), non-2xx ${load.non2xx}, errors ${load.errors} |\n`);
    process.stdout.write(`| load average | ${os.loadavg().map((value) => value.toFixed(2)).join(' ')} |\n`);
  } finally {
    await product.stop();
    await scratch.drop();
  }
}

/** Measures each store (MariaDB first) on the build run.ts made. */
export async function memoryBench(kinds: DatabaseKind[], variant: 'A' | 'B'): Promise<void> {
  for (const kind of kinds) await measure(kind, variant);
}
