import { spawn } from 'node:child_process';
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
export function runEntry(entry: string, args: string[], env: Record<string, string | undefined>, options: { input?: string; timeoutMs?: number } = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
      cwd: PROJECT_ROOT,
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

/** The operator CLI, as `npx schoolgate …` runs it. */
export function runCli(args: string[], env: Record<string, string | undefined>, options: { input?: string } = {}): Promise<ProcessResult> {
  return runEntry('src/cli/main.ts', args, env, options);
}
