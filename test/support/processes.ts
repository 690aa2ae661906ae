import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { PROJECT_ROOT } from '../../src/shared/paths.js';
import { TEST_KEY_ENCRYPTION_ENV } from './key-encryption.js';

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a TypeScript entry point of ours (through tsx) as a child process with the given environment, plus the tests'
 * key-encryption key unless `env` says otherwise (a variable set to undefined is left out).
 */
export function runEntry(entry: string, args: string[], env: Record<string, string | undefined>, options: { input?: string; timeoutMs?: number; cwd?: string } = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
      cwd: options.cwd ?? PROJECT_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'silent', ...TEST_KEY_ENCRYPTION_ENV, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** The operator CLI, as `npx schoolgate …` runs it (from `options.cwd`, a copy of the project, when given). */
export function runCli(args: string[], env: Record<string, string | undefined>, options: { input?: string; cwd?: string } = {}): Promise<ProcessResult> {
  return runEntry('src/cli/main.ts', args, env, options);
}

/** A TCP port nothing listens on right now, for a server process to take. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

export interface ServerProcess {
  child: ChildProcess;
  stdout: () => string;
  exited: Promise<number | null>;
}

/**
 * `npm start` minus the build: the real entry point in its own process (from `cwd`, a copy of the project, when
 * given), resolved once it says it is listening. It stops on SIGTERM without the drain delay unless `env` sets
 * SCHOOLGATE_DRAIN_SECONDS (test/drain.test.ts).
 */
export async function startServerProcess(env: Record<string, string>, cwd = PROJECT_ROOT): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd, env: { PATH: process.env.PATH, SCHOOLGATE_DRAIN_SECONDS: '0', ...TEST_KEY_ENCRYPTION_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left behind to listen later, after the test has given up on it.
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${stderr}`));
    }, 60000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('is listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}:\n${stderr}`)));
  });
  return { child, stdout: () => stdout, exited };
}
