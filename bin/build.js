#!/usr/bin/env node
// Compiles src/ and generated/ to dist/ (tsc -p tsconfig.build.json), for `npm install` (prepare), `npm run build`
// and `npm start` (prestart). With --if-stale it does nothing when dist/ is newer than every source, so a start does
// not recompile. Several processes may run it at once: one builds under a lock into a fresh folder that replaces dist/
// only when complete, the others wait for it and find dist/ up to date, so nobody loads a half-written module.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(root, 'dist');
const stamp = path.join(dist, '.build-stamp');
const lock = path.join(root, '.build-lock');
const SOURCES = ['src', 'generated', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
const LOCK_WAIT_MS = 10 * 60 * 1000;

/** The newest modification time among the sources (files and folders, recursively). */
function newestSource() {
  let newest = 0;
  const visit = (file) => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return;
    newest = Math.max(newest, stat.mtimeMs);
    if (stat.isDirectory()) for (const entry of fs.readdirSync(file)) visit(path.join(file, entry));
  };
  for (const source of SOURCES) visit(path.join(root, source));
  return newest;
}

function upToDate() {
  const built = fs.statSync(stamp, { throwIfNoEntry: false });
  return built !== undefined && fs.existsSync(path.join(dist, 'src', 'main.js')) && built.mtimeMs >= newestSource();
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Takes the build lock (a folder: creating it is atomic), waiting while another live process holds it. */
async function acquireLock() {
  const started = Date.now();
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }));
    if (holder > 0 && !processAlive(holder)) fs.rmSync(lock, { recursive: true, force: true });
    else if (Date.now() - started > LOCK_WAIT_MS) throw new Error(`another build has held ${lock} for 10 minutes; remove it if no build is running`);
    else await sleep(250);
  }
}

function compile() {
  const fresh = path.join(root, `dist.building-${process.pid}`);
  fs.rmSync(fresh, { recursive: true, force: true });
  const started = Date.now();
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', fresh], { stdio: 'inherit' });
  if (result.status !== 0) {
    fs.rmSync(fresh, { recursive: true, force: true });
    process.exit(result.status ?? 1);
  }
  fs.writeFileSync(path.join(fresh, '.build-stamp'), new Date(started).toISOString());
  // The stamp's time is when compiling started: a source saved during the build makes the next start rebuild.
  fs.utimesSync(path.join(fresh, '.build-stamp'), started / 1000, started / 1000);
  const old = path.join(root, `dist.old-${process.pid}`);
  if (fs.existsSync(dist)) fs.renameSync(dist, old);
  fs.renameSync(fresh, dist);
  fs.rmSync(old, { recursive: true, force: true });
}

// --check: only say whether dist/ is up to date (exit 0) or stale (exit 3).
if (process.argv.includes('--check')) process.exit(upToDate() ? 0 : 3);
const ifStale = process.argv.includes('--if-stale');
if (ifStale && upToDate()) process.exit(0);
// A production install (`npm ci --omit=dev`, as the container image's dependency stage runs it) has no TypeScript:
// `prepare` then leaves dist/ to whoever ships it (the image copies it from its build stage) instead of failing.
if (ifStale && !fs.existsSync(path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'))) {
  process.stderr.write('schoolgate: TypeScript is not installed (a production install): dist/ is not compiled here\n');
  process.exit(0);
}
await acquireLock();
try {
  if (!(ifStale && upToDate())) {
    process.stderr.write('schoolgate: compiling TypeScript to dist/ …\n');
    compile();
  }
} finally {
  fs.rmSync(lock, { recursive: true, force: true });
}
