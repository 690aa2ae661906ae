/**
 * bench:scale, import: `schoolgate import FILE` of a school with 1,000, 10,000 and 100,000 users, each enrolled in one
 * of its courses with a resume point and progress on three lectures, as an operator runs it: the CLI in a process of its
 * own (the build, `node dist/src/cli/main.js`, which the `schoolgate` command runs), its document written
 * to disk first. Reported: users/s over the command's wall time (start-up included), whether the time per user stays
 * the same as the school grows (linear), and the import process's peak resident memory (VmHWM, read from /proc while it
 * runs), next to the size of the document.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import type { ImportDocument } from '../../../src/import/document.js';
import type { ImportReport } from '../../../src/import/context.js';
import { importSiteDocument } from '../../../src/import/import-site.js';
import { PROJECT_ROOT } from '../../../src/shared/paths.js';
import { createScratchDatabase } from '../../support/databases.js';
import { TEST_KEY_ENCRYPTION_ENV } from '../../support/key-encryption.js';
import { CLI_ENTRY } from '../harness.js';
import { percentFrom, shortCount } from './load.js';
import { residentMemoryMb } from './probes.js';
import type { ScaleContext, ScaleScenario, ScaleSeries } from './types.js';

const FULL_SIZES = [1000, 10000, 100000];
const QUICK_SIZES = [100, 1000];
const COURSES = 10;
const SECTIONS = 2;
const LECTURES_PER_SECTION = 5;
/** Targets (issue): at least 5,000 users/s on both stores, and the time per user the same at every size (within 25%). */
const USERS_PER_SECOND_TARGET = 5000;
const LINEAR_WITHIN = 0.25;
/**
 * Seconds the largest import may take (SCALE_IMPORT_BUDGET_SECONDS): bench:scale is bounded in time, so when the
 * sizes before it predict more, the largest size that fits is imported instead, and the verdict says so.
 */
const BUDGET_SECONDS = Number(process.env.SCALE_IMPORT_BUDGET_SECONDS ?? 90);
const FALLBACK_SIZES = [50000, 30000, 20000];

/** A school of `users` students, each enrolled in one of COURSES courses with a resume point and three lectures of progress. */
function schoolDocument(users: number, name = `import-${users}`): ImportDocument {
  const origin = `https://${name}.scale.test`;
  const lecture = (c: number, s: number, l: number) => `c${c}-s${s}-l${l}`;
  const email = (index: number) => `learner-${index}@${name}.scale.test`;
  const courses = Array.from({ length: COURSES }, (_, c) => ({
    externalId: `c${c}`,
    slug: `course-${c}`,
    title: `Course ${c}`,
    status: 'published' as const,
    sections: Array.from({ length: SECTIONS }, (_, s) => ({
      externalId: `c${c}-s${s}`,
      title: `Section ${s}`,
      lectures: Array.from({ length: LECTURES_PER_SECTION }, (_, l) => ({ externalId: lecture(c, s, l), title: `Lecture ${s}.${l}`, kind: 'video' as const, durationSeconds: 300 })),
    })),
  }));
  return {
    formatVersion: 1,
    site: { origin, name: `Import School ${name}` },
    users: Array.from({ length: users }, (_, index) => ({ email: email(index), name: `Learner ${index}`, roles: ['student' as const] })),
    courses,
    enrollments: Array.from({ length: users }, (_, index) => {
      const c = index % COURSES;
      return {
        externalId: `e${index}`,
        course: `c${c}`,
        user: email(index),
        enrolledAt: '2026-01-05T09:00:00Z',
        hasLifetimeAccess: true,
        lastWatched: { lecture: lecture(c, 0, 2), positionSeconds: 120, at: '2026-02-01T18:00:00Z' },
        progress: [
          { lecture: lecture(c, 0, 0), state: 'completed' as const, completedAt: '2026-01-06T10:00:00Z' },
          { lecture: lecture(c, 0, 1), state: 'completed' as const, completedAt: '2026-01-07T10:00:00Z' },
          { lecture: lecture(c, 0, 2), state: 'read' as const, positionSeconds: 120 },
        ],
      };
    }),
  };
}

interface ImportRun {
  seconds: number;
  peakMb: number;
  report: ImportReport;
}

/** `schoolgate --json import file` in its own process, its VmHWM read every 50 ms until it exits. */
function importInProcess(file: string, databaseUrl: string): Promise<ImportRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI_ENTRY, '--json', 'import', file], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...TEST_KEY_ENCRYPTION_ENV, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let peakMb = 0;
    const sampler = setInterval(() => {
      const { peak } = residentMemoryMb(child.pid);
      if (Number.isFinite(peak)) peakMb = Math.max(peakMb, peak);
    }, 50);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(sampler);
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`schoolgate import exited with ${String(code)}: ${stderr.slice(0, 2000)}`));
      try {
        resolve({ seconds, peakMb, report: JSON.parse(stdout) as ImportReport });
      } catch (error) {
        reject(new Error(`schoolgate import printed no JSON report: ${String(error)} ${stdout.slice(0, 500)}`));
      }
    });
  });
}

/** What importing `users` should take, from the last size measured (time per user). */
function predictedSeconds(users: number, last: { users: number; seconds: number } | undefined): number {
  return last ? (last.seconds / last.users) * users : 0;
}

/** `planned`, or the largest fallback size (above the last size measured) whose predicted time fits the budget; null if none does. */
function fitting(planned: number, last: { users: number; seconds: number } | undefined): number | null {
  if (predictedSeconds(planned, last) <= BUDGET_SECONDS) return planned;
  return FALLBACK_SIZES.find((users) => users < planned && users > (last?.users ?? 0) && predictedSeconds(users, last) <= BUDGET_SECONDS) ?? null;
}

/** SQL statements per user of an import, counted in this process on a small school (what the time per user is made of). */
async function statementsPerUser(db: Knex, users: number): Promise<number> {
  let statements = 0;
  const listener = () => {
    statements += 1;
  };
  db.on('query', listener);
  try {
    await importSiteDocument(db, schoolDocument(users, `counted-${users}`));
  } finally {
    db.off('query', listener);
  }
  return statements / users;
}

async function run(context: ScaleContext): Promise<ScaleSeries[]> {
  const sizes = context.quick ? QUICK_SIZES : FULL_SIZES;
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-scale-import-'));
  const scratch = await createScratchDatabase(context.kind);
  const points: Array<{ users: number; seconds: number; peakMb: number; documentMb: number }> = [];
  const cut: string[] = [];
  let perUser = NaN;
  try {
    // Enough users for several chunks (src/import/import-site.ts, IMPORT_CHUNK_SIZE), so the fixed cost is spread out.
    perUser = await statementsPerUser(scratch.db, 2000);
    context.log(`import: ${perUser.toFixed(3)} SQL statements per user (a user, their membership and role, an enrollment, a resume point, 3 lectures of progress)`);
    for (const planned of sizes) {
      const users = fitting(planned, points.at(-1));
      if (users !== planned) {
        cut.push(`${shortCount(planned)} would take about ${Math.round(predictedSeconds(planned, points.at(-1)))} s, over the ${BUDGET_SECONDS} s budget: ${users === null ? 'not run' : `${shortCount(users)} instead`}`);
        context.log(`import: ${cut.at(-1) ?? ''}`);
        if (users === null) break;
      }
      const file = path.join(directory, `school-${users}.json`);
      fs.writeFileSync(file, JSON.stringify(schoolDocument(users)));
      const documentMb = fs.statSync(file).size / 1024 / 1024;
      const { seconds, peakMb, report } = await importInProcess(file, scratch.url);
      fs.rmSync(file);
      const created = report.counts.users.created;
      if (created !== users || report.counts.enrollments.created !== users) throw new Error(`the import of ${users} users created ${created} users and ${report.counts.enrollments.created} enrollments`);
      points.push({ users, seconds, peakMb, documentMb });
      context.log(`import ${shortCount(users)} users: ${seconds.toFixed(1)} s (${Math.round(users / seconds)} users/s), peak RSS ${peakMb.toFixed(0)} MB, document ${documentMb.toFixed(1)} MB`);
    }
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
    await scratch.drop();
  }
  const largest = points.at(-1);
  if (!largest) return [];
  // Per user, between the two largest sizes (the smallest is mostly start-up): linear when it does not grow. With one
  // size only (the budget cut the others), neither linearity nor memory growth is measured.
  const previous = points.at(-2);
  const rate = (point: (typeof points)[number]) => Math.round(point.users / point.seconds);
  const linearity = previous
    ? `linear: ${largest.seconds / largest.users <= (previous.seconds / previous.users) * (1 + LINEAR_WITHIN) ? 'yes' : 'NO'} (time per user ${percentFrom(previous.seconds / previous.users, largest.seconds / largest.users)} from ${shortCount(previous.users)} to ${shortCount(largest.users)})`
    : 'linear: not measured (one size only)';
  const growth = previous
    ? `${(((largest.peakMb - previous.peakMb) * 1024) / (largest.users - previous.users)).toFixed(1)} KB more per user from ${shortCount(previous.users)} to ${shortCount(largest.users)} (${largest.documentMb.toFixed(0)} MB document, ${Math.round(largest.peakMb)} MB peak): bounded: ${largest.peakMb <= previous.peakMb * 1.5 ? 'yes' : 'NO (what remains per user: the keys of users and enrollments for validation, and the id of each user while the transaction runs)'}`
    : `${Math.round(largest.peakMb)} MB peak for ${shortCount(largest.users)} users (${largest.documentMb.toFixed(1)} MB document); growth not measured (one size only)`;
  return [
    {
      id: 'import-rate',
      title: 'schoolgate import: users with an enrollment and progress each',
      xLabel: 'users in the document',
      yLabel: 'users/s (wall time, start-up included)',
      logX: true,
      store: context.kind,
      points: points.map((point) => ({ x: point.users, value: rate(point), note: `${point.seconds.toFixed(1)} s` })),
      verdict: `≥ ${USERS_PER_SECOND_TARGET.toLocaleString('en')} users/s at ${shortCount(largest.users)}: ${rate(largest) >= USERS_PER_SECOND_TARGET ? 'yes' : 'NO'} (${rate(largest).toLocaleString('en')}); ${linearity}; ${perUser.toFixed(3)} SQL statements per user${cut.length > 0 ? `; ${cut.join('; ')}` : ''}`,
    },
    {
      id: 'import-memory',
      title: 'schoolgate import: peak resident memory of the import process',
      xLabel: 'users in the document',
      yLabel: 'peak RSS MB (VmHWM)',
      logX: true,
      store: context.kind,
      points: points.map((point) => ({ x: point.users, value: Math.round(point.peakMb), note: `document ${point.documentMb.toFixed(1)} MB` })),
      verdict: growth,
    },
  ];
}

export const importScenario: ScaleScenario = { name: 'import', run };
