/**
 * npm run bench: each hot path of the product next to a hand-written floor doing the same work, in the same run,
 * interleaved (BENCH_PAIRS pairs of BENCH_SECONDS runs at BENCH_CONNECTIONS connections), as the median ratio with the
 * load average. MariaDB first, then SQLite; BENCH_DATABASE=mysql or sqlite runs one. The product runs as
 * `npm start` would (its own process, NODE_ENV=production, logging at info); the floors in another process over the
 * same database. Each floor runs the product's exact SQL (captured from the product's code in this process before
 * timing, test/bench/floors/statements.ts) as prepared statements. Loopback only, bounded in time.
 *
 * The product is the build of the sources (dist/, compiled first when stale), as `npm start` runs it.
 *
 * `npm run bench -- --memory` measures resident memory instead (test/bench/memory.ts).
 *
 * For profiling: BENCH_ONLY=<regex> runs the comparisons whose name matches; BENCH_CPU_PROF=<dir> writes a V8 CPU
 * profile of the product (`product/`) and of the floors (`floor/`) there (node --cpu-prof) when they stop;
 * BENCH_SERVER_OUTPUT=<dir> keeps both servers' standard output there (with `--trace-gc-nvp` in BENCH_NODE_FLAGS and
 * BENCH_FLOOR_NODE_FLAGS, every collection of each side).
 */
import { createSite } from '../../src/sites/sites.js';
import { createScratchDatabase, type DatabaseKind } from '../support/databases.js';
import { captureFromProduct } from './floors/capture.js';
import { STATEMENTS_PATH } from './floors/index.js';
import { bareKoa, buildProduct, compare, FLOOR_NODE_FLAGS, PRODUCT_ENTRY, PRODUCT_NODE_FLAGS, printComparisons, run, startProcess, type BenchContext, type ComparisonResult } from './harness.js';
import { mcpComparisons } from './mcp.bench.js';
import { memoryBench } from './memory.js';
import { oauthComparisons } from './oauth.bench.js';
import { syllabusComparisons } from './syllabus.bench.js';
import { trustedDocumentComparisons } from './trusted-documents.bench.js';

const MODULES: Array<(context: BenchContext) => Promise<Parameters<typeof compare>[0][]>> = [oauthComparisons, syllabusComparisons, mcpComparisons, trustedDocumentComparisons];
const kinds: DatabaseKind[] = process.env.BENCH_DATABASE === 'mysql' || process.env.BENCH_DATABASE === 'sqlite' ? [process.env.BENCH_DATABASE] : ['mysql', 'sqlite'];
const variant = process.env.SCHOOLGATE_VARIANT === 'B' ? 'B' : 'A';
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
const profiling = (side: string) => (process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', `${process.env.BENCH_CPU_PROF}/${side}`] : []);

buildProduct();

if (process.argv.includes('--memory')) {
  await memoryBench(kinds, variant);
  process.exit(0);
}

const bare = await bareKoa();
const bareFigures = await run({ url: bare.url });
await bare.close();
process.stdout.write(`bare Koa route on this machine: ${bareFigures.requestsPerSecond} req/s (for scale)\n`);

for (const kind of kinds) {
  const scratch = await createScratchDatabase(kind);
  const env = { DATABASE_URL: scratch.url, SCHOOLGATE_VARIANT: variant };
  const product = await startProcess(PRODUCT_ENTRY, { ...env, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'production', LOG_LEVEL: 'info', SCHOOLGATE_DEMO: 'false', SCHOOLGATE_PRUNE_INTERVAL_SECONDS: '0' }, [...PRODUCT_NODE_FLAGS, ...profiling('product')]);
  const floors = await startProcess('test/bench/floors/server.ts', env, [...FLOOR_NODE_FLAGS, ...profiling('floor')]);
  try {
    const site = await createSite(scratch.db, { origin: product.url, name: 'Bench School', subdomain: 'bench' });
    const context: BenchContext = { kind, variant, productUrl: product.url, floorUrl: floors.url, db: scratch.db, site };
    const comparisons: Parameters<typeof compare>[0][] = [];
    for (const module of MODULES) comparisons.push(...(await module(context)).filter((comparison) => !only || only.test(comparison.name)));
    // The floors run the product's own statements, captured now from the product's code over this database.
    const book = await captureFromProduct(scratch.db, scratch.config, site, variant);
    const handed = await fetch(`${floors.url}${STATEMENTS_PATH}`, { method: 'POST', body: JSON.stringify(book) });
    if (!handed.ok) throw new Error(`the floors refused the product's statements: ${handed.status}`);
    const results: ComparisonResult[] = [];
    for (const comparison of comparisons) results.push(await compare(comparison));
    printComparisons(`schoolgate bench (${kind}, variant ${variant})`, results);
  } finally {
    await product.stop();
    await floors.stop();
    await scratch.drop();
  }
}
