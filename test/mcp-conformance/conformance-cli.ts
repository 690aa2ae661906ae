import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { node22 } from './node-22.js';

/**
 * The conformance suite's CLI, run on Node 22 (test/mcp-conformance/node-22.ts): the suite needs 22 and the
 * project's own Node may be 20.
 */
const require = createRequire(import.meta.url);
const SUITE_CLI = path.join(path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');

export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED' | 'ERROR';

/** One entry of a scenario's checks.json. */
export interface Check {
  id: string;
  status: CheckStatus;
  errorMessage?: string;
  details?: unknown;
}

export interface ProcessRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr, interleaved as they came, for a report when something goes wrong. */
  output: string;
  timedOut: boolean;
}

/** The children still running, so a run stopped by its deadline leaves none behind. */
const running = new Set<ChildProcess>();

export function killRunningChildren(): void {
  for (const child of running) child.kill('SIGKILL');
}

/**
 * Runs a Node 22 script to completion, or kills it after `timeoutMs`. `onLine` sees each stdout line as it comes (the
 * authorization scenario prints the URL to open, then waits for its callback).
 */
export function runNode22(args: string[], options: { timeoutMs: number; env?: NodeJS.ProcessEnv; onLine?: (line: string) => void }): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env };
    // Everything these tools reach is on loopback; a proxy from the environment would only get in the way.
    for (const name of Object.keys(env)) if (/^(https?|all|no)_proxy$/i.test(name)) delete env[name];
    const child = spawn(node22(), args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    running.add(child);
    const result: ProcessRun = { exitCode: null, stdout: '', stderr: '', output: '', timedOut: false };
    let pending = '';
    const timer = setTimeout(() => {
      result.timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      result.stdout += chunk;
      result.output += chunk;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) options.onLine?.(line);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      result.stderr += chunk;
      result.output += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      reject(error);
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      running.delete(child);
      if (pending !== '') options.onLine?.(pending);
      result.exitCode = exitCode;
      resolve(result);
    });
  });
}

/** `conformance ARGS`. */
export function runSuite(args: string[], options: { timeoutMs: number; onLine?: (line: string) => void }): Promise<ProcessRun> {
  return runNode22([SUITE_CLI, ...args], options);
}

/** `<prefix><scenario>-<timestamp>`, as the suite names a scenario's result directory. */
const RESULT_DIRECTORY = /^(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/**
 * The checks of every scenario the suite saved under `-o directory`, by scenario name. `prefix` is the one the suite
 * puts before the name: `server-` for server scenarios, `authorization-server-` for authorization-server ones.
 */
export function readResults(directory: string, prefix: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  if (!fs.existsSync(directory)) return results;
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const match = entry.isDirectory() && entry.name.startsWith(prefix) ? RESULT_DIRECTORY.exec(entry.name.slice(prefix.length)) : null;
    const file = path.join(directory, entry.name, 'checks.json');
    if (!match?.[1] || !fs.existsSync(file)) continue;
    results.set(match[1], JSON.parse(fs.readFileSync(file, 'utf8')) as Check[]);
  }
  return results;
}

/** Every server scenario the suite knows, with the spec versions (or `extension`) it is tagged for. */
export async function listServerScenarios(): Promise<Map<string, string[]>> {
  const run = await runSuite(['list', '--server'], { timeoutMs: 60_000 });
  if (run.exitCode !== 0) throw new Error(`conformance list --server failed:\n${run.output}`);
  const scenarios = new Map<string, string[]>();
  for (const match of run.output.matchAll(/^\s*-\s+(\S+)\s+\[([^\]]*)\]\s*$/gm)) {
    scenarios.set(match[1] ?? '', (match[2] ?? '').split(',').map((tag) => tag.trim()));
  }
  if (scenarios.size === 0) throw new Error(`conformance list --server printed no scenario:\n${run.output}`);
  return scenarios;
}
