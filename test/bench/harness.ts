import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import Koa from 'koa';
import type { Knex } from 'knex';
import type { Variant } from '../../src/config/config.js';
import { PROJECT_ROOT } from '../../src/shared/paths.js';
import type { Site } from '../../src/sites/sites.js';
import { TEST_KEY_ENCRYPTION_ENV } from '../support/key-encryption.js';

/**
 * The product and its CLI as `npm start` and `schoolgate` run them: compiled to dist/, on plain node. Not the sources
 * through tsx, whose transform wraps every function made at run time in a naming helper (esbuild's keepNames): a few
 * µs a request that production does not pay.
 */
export const PRODUCT_ENTRY = 'dist/src/main.js';
export const CLI_ENTRY = 'dist/src/cli/main.js';

/** Compiles dist/ when a source is newer (bin/build.js --if-stale, as `npm start` does), so the bench measures the sources as they are. */
export function buildProduct(): void {
  execFileSync(process.execPath, ['bin/build.js', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
}

/** Seconds per run; each comparison makes PAIRS runs of the product and PAIRS of its floor. */
export const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
/** V8 flags for the product process (e.g. `--max-old-space-size=128`), to see what a flag trades for speed or memory. */
export const PRODUCT_NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** The same for the floors' process (e.g. the same probe, so that both sides are measured alike). */
export const FLOOR_NODE_FLAGS = (process.env.BENCH_FLOOR_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** Where the servers' standard output is kept (their log lines, and V8's from flags such as `--trace-gc-nvp`); dropped when unset. */
const SERVER_OUTPUT_DIR = process.env.BENCH_SERVER_OUTPUT ?? '';
/** Interleaved product/floor pairs per comparison (at least 3): the figure is the median of the pairs' ratios. */
export const PAIRS = Math.max(3, Number(process.env.BENCH_PAIRS ?? 3));
const WARM_UP_SECONDS = 2;

/** One side of a comparison: what autocannon sends. `setupClient` gives each connection its own body (e.g. its own refresh token). */
export interface Target {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  setupClient?: (client: autocannon.Client) => void;
}

/**
 * The product next to a hand-written floor doing the same work. Before timing, both are asked once and `same` must
 * accept the two answers (default: deep-equal JSON bodies), so a floor can never do less than the product.
 */
export interface Comparison {
  name: string;
  floorName: string;
  product: Target;
  floor: Target;
  /** Throws when the two answers differ. */
  same?: (product: unknown, floor: unknown) => void;
}

/** What a bench module gets: a migrated database with one site whose origin is the product's URL, and both servers. */
export interface BenchContext {
  kind: 'sqlite' | 'mysql';
  variant: Variant;
  productUrl: string;
  floorUrl: string;
  db: Knex;
  site: Site;
}

export interface RunFigures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** CPU time (user + system) the serving process spent per answered request, in µs; null where it cannot be read. */
  cpuMicrosPerRequest: number | null;
  non2xx: number;
  errors: number;
}

export interface ComparisonResult {
  name: string;
  floorName: string;
  product: RunFigures[];
  floor: RunFigures[];
  /** Median over the pairs of product req/s ÷ floor req/s. */
  ratio: number;
  /** Median over the pairs of the floor's CPU time per request ÷ the product's: the throughput ratio when both are CPU-bound. */
  cpuRatio: number | null;
  loadAverage: number[];
}

/** The process of each server startProcess started, by its URL: a run reads the CPU time of the one it targets. */
const processByUrl = new Map<string, ChildProcess>();

/**
 * A process's CPU time so far (user + system, /proc/<pid>/stat, in µs); null off Linux. Unlike throughput, CPU time
 * per request hardly depends on what else the machine runs, so it still compares product and floor on a shared machine.
 */
function cpuMicros(child: ChildProcess | undefined): number | null {
  if (child?.pid === undefined) return null;
  try {
    const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return null;
  }
}

/** One bounded autocannon run against loopback. */
export async function run(target: Target & { duration?: number }): Promise<RunFigures> {
  const serving = [...processByUrl].find(([url]) => target.url.startsWith(url))?.[1];
  const cpuBefore = cpuMicros(serving);
  const result = await autocannon({ duration: DURATION_SECONDS, connections: CONNECTIONS, ...target });
  const cpuAfter = cpuMicros(serving);
  const cpuMicrosPerRequest = cpuBefore === null || cpuAfter === null || result.requests.total === 0 ? null : Math.round((cpuAfter - cpuBefore) / result.requests.total);
  return { requestsPerSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, cpuMicrosPerRequest, non2xx: result.non2xx, errors: result.errors };
}

/** One request of a target, answered as JSON (a floor and the product must agree on it). */
async function answerOf(target: Target): Promise<unknown> {
  const response = await fetch(target.url, { method: target.method ?? 'GET', headers: target.headers, body: target.body });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${target.url} answered ${response.status}: ${text.slice(0, 300)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function sameJson(product: unknown, floor: unknown): void {
  if (!isDeepStrictEqual(product, floor)) throw new Error(`the floor's answer differs from the product's:\nproduct ${JSON.stringify(product).slice(0, 600)}\nfloor   ${JSON.stringify(floor).slice(0, 600)}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Checks the answers agree, then runs PAIRS interleaved pairs (the order alternates, so drift hits both sides alike). */
export async function compare(comparison: Comparison): Promise<ComparisonResult> {
  (comparison.same ?? sameJson)(await answerOf(comparison.product), await answerOf(comparison.floor));
  // One unrecorded run each first: the first run of a fresh process pays for JIT warm-up and cold caches.
  await run({ ...comparison.product, duration: WARM_UP_SECONDS });
  await run({ ...comparison.floor, duration: WARM_UP_SECONDS });
  const product: RunFigures[] = [];
  const floor: RunFigures[] = [];
  for (let pair = 0; pair < PAIRS; pair += 1) {
    if (pair % 2 === 0) {
      floor.push(await run(comparison.floor));
      product.push(await run(comparison.product));
    } else {
      product.push(await run(comparison.product));
      floor.push(await run(comparison.floor));
    }
  }
  const ratio = median(product.map((figures, index) => figures.requestsPerSecond / Math.max(1, floor[index]?.requestsPerSecond ?? 1)));
  const cpuRatios = product.flatMap((figures, index) => {
    const floorCpu = floor[index]?.cpuMicrosPerRequest;
    return figures.cpuMicrosPerRequest && floorCpu ? [floorCpu / figures.cpuMicrosPerRequest] : [];
  });
  const cpuRatio = cpuRatios.length === product.length ? median(cpuRatios) : null;
  return { name: comparison.name, floorName: comparison.floorName, product, floor, ratio, cpuRatio, loadAverage: os.loadavg() };
}

export function printComparisons(title: string, results: ComparisonResult[]): void {
  process.stdout.write(`\n${title}: ${CONNECTIONS} connections, ${PAIRS} interleaved pairs of ${DURATION_SECONDS}s, Node ${process.version}\n\n`);
  process.stdout.write('| path | product req/s (runs) | floor | floor req/s (runs) | ratio (median) | CPU µs per request, product / floor (median) | CPU ratio (median) | product p50 / p99 ms | non-2xx product / floor | load average |\n');
  process.stdout.write('| --- | --- | --- | --- | ---: | --- | ---: | --- | ---: | --- |\n');
  for (const result of results) {
    const rates = (runs: RunFigures[]) => runs.map((figures) => figures.requestsPerSecond).join(' / ');
    const p50 = median(result.product.map((figures) => figures.p50));
    const p99 = median(result.product.map((figures) => figures.p99));
    const cpu = (runs: RunFigures[]) => (runs.every((figures) => figures.cpuMicrosPerRequest !== null) ? String(median(runs.map((figures) => figures.cpuMicrosPerRequest ?? 0))) : '?');
    const failures = (runs: RunFigures[]) => runs.reduce((sum, figures) => sum + figures.non2xx + figures.errors, 0);
    process.stdout.write(
      `| ${result.name} | ${rates(result.product)} | ${result.floorName} | ${rates(result.floor)} | ${result.ratio.toFixed(2)} | ${cpu(result.product)} / ${cpu(result.floor)} | ${result.cpuRatio?.toFixed(2) ?? '?'} | ${p50} / ${p99} | ${failures(result.product)} / ${failures(result.floor)} | ${result.loadAverage.map((load) => load.toFixed(2)).join(' ')} |\n`,
    );
  }
}

/** The yardstick: a Koa route that does nothing but answer JSON, on the same machine and Node. */
export async function bareKoa(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * A server in a process of its own (so autocannon, here, does not share its event loop), found listening through the
 * first JSON log line with `listeningOn`. Its output is drained and dropped (the product logs every request at info),
 * or kept in BENCH_SERVER_OUTPUT.
 */
export async function startProcess(entry: string, env: Record<string, string>, nodeOptions: string[] = []): Promise<ServerProcess> {
  // TypeScript sources run through tsx; a built entry (dist/…/*.js) runs on plain node, as `npm start` runs it.
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeOptions, ...loader, entry], {
    cwd: PROJECT_ROOT,
    // No drain delay on SIGTERM: the benchmarks stop servers between runs and measure no shutdown.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SCHOOLGATE_DRAIN_SECONDS: '0', ...TEST_KEY_ENCRYPTION_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  // Drains the output for the server's whole life, keeping it when asked.
  const kept = SERVER_OUTPUT_DIR ? fs.createWriteStream(path.join(SERVER_OUTPUT_DIR, `${path.basename(entry)}-${String(child.pid)}.out`)) : null;
  child.stdout?.on('data', (chunk: Buffer) => kept?.write(chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (const line of buffered.split('\n')) {
        const match = /"listeningOn":"([^"]+)"/.exec(line);
        if (match?.[1]) {
          child.stdout?.off('data', onData);
          resolve(match[1]);
          return;
        }
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${String(code)} before listening: ${stderr.slice(0, 2000)}`)));
  });
  processByUrl.set(url, child);
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
