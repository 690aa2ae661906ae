/**
 * npm run bench:scale: how the cost of a request grows with the data (token rows, sites, members and courses, import
 * size, concurrent connections). Every scenario (test/bench/scale/<name>.scale.ts) runs on MySQL/MariaDB, then on
 * SQLite, each in its own scratch database against the product in its own process, bounded in time (about 15 min for
 * everything on both stores). The series land in docs/performance/: scale.md (tables and verdicts), scale-<id>.svg
 * (plots) and scale.json (kept between runs: a partial run replaces only what it measured).
 *
 * BENCH_DATABASE=mysql|sqlite runs one store; SCALE_ONLY=<regex> the scenarios whose name matches; SCALE_QUICK=1 a
 * tiny run of every code path in seconds, written to a scratch directory unless SCALE_OUT says where. The MySQL/MariaDB
 * scenarios run with the server's buffer pool raised for the run (mysql-server.ts, SCALE_MYSQL_BUFFER_POOL_MB).
 */
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../src/shared/paths.js';
import { buildProduct } from '../harness.js';
import { connectionsScenario } from './connections.scale.js';
import { importScenario } from './import.scale.js';
import { membersScenario } from './members.scale.js';
import { BUFFER_POOL_MB, withBufferPool } from './mysql-server.js';
import { stamp, writeScaleReport, type MeasuredSeries } from './report.js';
import { sitesScenario } from './sites.scale.js';
import { tokensScenario } from './tokens.scale.js';
import type { ScaleScenario } from './types.js';

const SCENARIOS: ScaleScenario[] = [tokensScenario, connectionsScenario, sitesScenario, membersScenario, importScenario];

const kinds: Array<'mysql' | 'sqlite'> = process.env.BENCH_DATABASE === 'mysql' || process.env.BENCH_DATABASE === 'sqlite' ? [process.env.BENCH_DATABASE] : ['mysql', 'sqlite'];
const only = process.env.SCALE_ONLY ? new RegExp(process.env.SCALE_ONLY, 'i') : null;
const quick = process.env.SCALE_QUICK === '1';
const out = process.env.SCALE_OUT ?? (quick ? path.join(os.tmpdir(), 'schoolgate-scale-quick') : path.join(PROJECT_ROOT, 'docs', 'performance'));
const selected = SCENARIOS.filter((scenario) => !only || only.test(scenario.name));
if (selected.length === 0) {
  process.stderr.write(`SCALE_ONLY=${process.env.SCALE_ONLY ?? ''} matches no scenario (${SCENARIOS.map((scenario) => scenario.name).join(', ')})\n`);
  process.exit(2);
}

// The product and its CLI run as built (dist/), as `npm start` and `schoolgate` run them.
buildProduct();
const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const started = performance.now();
const measured: MeasuredSeries[] = [];
const failed: string[] = [];
log(`bench:scale${quick ? ' (quick)' : ''}: ${selected.map((scenario) => scenario.name).join(', ')} on ${kinds.join(', ')}; ${os.cpus().length} cores, load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}`);
async function runScenarios(kind: 'mysql' | 'sqlite', bufferPoolMb?: number): Promise<void> {
  for (const scenario of selected) {
    const scenarioStarted = performance.now();
    log(`${scenario.name} on ${kind}: start`);
    try {
      const series = await scenario.run({ kind, quick, log });
      const elapsed = (performance.now() - scenarioStarted) / 1000;
      const stamped = series.map((one) => stamp(one, elapsed, bufferPoolMb));
      measured.push(...stamped);
      // Written after every scenario, so a run stopped half-way keeps what it measured.
      writeScaleReport(out, stamped);
      for (const one of series) log(`  ${one.id} [${kind}]: ${one.verdict ?? 'no verdict'}`);
      log(`${scenario.name} on ${kind}: ${elapsed.toFixed(0)} s (total ${((performance.now() - started) / 1000).toFixed(0)} s)`);
    } catch (error) {
      failed.push(`${scenario.name} on ${kind}`);
      log(`${scenario.name} on ${kind} FAILED after ${((performance.now() - scenarioStarted) / 1000).toFixed(0)} s: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
}

for (const kind of kinds) {
  if (kind === 'sqlite' || quick) await runScenarios(kind);
  else {
    await withBufferPool(BUFFER_POOL_MB, async (poolMb) => {
      log(`MySQL/MariaDB buffer pool for this run: ${poolMb} MB`);
      await runScenarios(kind, poolMb);
    });
  }
}
if (measured.length > 0) {
  log(`wrote ${measured.length} series to ${path.relative(process.cwd(), out) || out}/scale.md (and scale-<id>.svg, scale.json)`);
}
log(`bench:scale: ${((performance.now() - started) / 60000).toFixed(1)} min in all, load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}${failed.length > 0 ? `; FAILED: ${failed.join(', ')}` : ''}`);
process.exit(failed.length > 0 ? 1 : 0);
