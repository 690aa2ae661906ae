/**
 * Real server processes (`node --import tsx src/main.ts`), each on its own Galera node, all serving one site whose
 * virtual origin is SITE_ORIGIN: requests reach an instance at 127.0.0.1:PORT and name the site with
 * X-Forwarded-Host / X-Forwarded-Proto, as a load balancer in front of them would (TRUST_PROXY=true).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as oauth from 'oauth4webapi';
import { PROJECT_ROOT } from '../../../src/shared/paths.js';
import { TEST_KEY_ENCRYPTION_ENV } from '../../support/key-encryption.js';
import { runEntry, type ProcessResult } from '../../support/processes.js';

export const SITE_HOST = 'school.test';
export const SITE_ORIGIN = `http://${SITE_HOST}`;
/** The client address the instances see (X-Forwarded-For), unless a request names another. */
export const DEFAULT_CLIENT_ADDRESS = '198.51.100.10';

export interface Instance {
  name: string;
  /** http://127.0.0.1:PORT */
  url: string;
  child: ChildProcess;
  logFile: string;
  /** Everything the process wrote (stdout and stderr), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** The instance-side URL of a site URL (or path): same path and query, the instance's address. */
export function onInstance(instance: Instance, siteUrl: string | URL): URL {
  const url = new URL(siteUrl, SITE_ORIGIN);
  return new URL(`${url.pathname}${url.search}`, instance.url);
}

export function forwardedHeaders(clientAddress = DEFAULT_CLIENT_ADDRESS): Record<string, string> {
  return { 'x-forwarded-host': SITE_HOST, 'x-forwarded-proto': 'http', 'x-forwarded-for': clientAddress };
}

export interface SiteRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | URLSearchParams;
  redirect?: 'manual' | 'follow' | 'error';
  clientAddress?: string;
  signal?: AbortSignal;
}

/** fetch of a site URL (http://school.test/…) or path through one instance. */
export function siteFetch(instance: Instance, siteUrl: string | URL, init: SiteRequestInit = {}): Promise<Response> {
  return fetch(onInstance(instance, siteUrl), {
    method: init.method ?? 'GET',
    headers: { ...forwardedHeaders(init.clientAddress), ...init.headers },
    body: init.body,
    redirect: init.redirect ?? 'manual',
    signal: init.signal,
  });
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function readJson(response: Response): Promise<JsonAnswer> {
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    body = { unparsed: text.slice(0, 500) };
  }
  return { status: response.status, headers: response.headers, body };
}

export async function postFormAt(instance: Instance, sitePath: string, fields: Record<string, string>, init: SiteRequestInit = {}): Promise<JsonAnswer> {
  return readJson(await siteFetch(instance, sitePath, { ...init, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...init.headers }, body: new URLSearchParams(fields) }));
}

export async function getJsonAt(instance: Instance, sitePath: string, init: SiteRequestInit = {}): Promise<JsonAnswer> {
  return readJson(await siteFetch(instance, sitePath, init));
}

/** oauth4webapi options that send its requests for SITE_ORIGIN to this instance. */
export function viaInstance(instance: Instance): { [oauth.customFetch]: typeof fetch; [oauth.allowInsecureRequests]: true } {
  const customFetch = ((url: string | URL | Request, options?: RequestInit) => {
    const headers = new Headers(options?.headers);
    for (const [name, value] of Object.entries(forwardedHeaders())) headers.set(name, value);
    return fetch(onInstance(instance, String(url)), { ...options, headers });
  }) as typeof fetch;
  return { [oauth.customFetch]: customFetch, [oauth.allowInsecureRequests]: true };
}

/** Starts `src/main.ts` on the given database and waits until it listens and /healthz answers 200. */
export async function startInstance(name: string, databaseUrl: string, logDir: string, extraEnv: Record<string, string> = {}): Promise<Instance> {
  fs.mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}.log`);
  const log = fs.createWriteStream(logFile);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      // The key-encryption key runEntry gives the CLI: instances and CLI runs read each other's signing keys.
      ...TEST_KEY_ENCRYPTION_ENV,
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      SCHOOLGATE_DEMO: 'false',
      TRUST_PROXY: 'true',
      LOG_LEVEL: process.env.SCHOOLGATE_CLUSTER_LOG_LEVEL ?? 'warn',
      // No load balancer watches these instances' readiness: a stop need not wait for one to notice.
      SCHOOLGATE_DRAIN_SECONDS: '0',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output += text;
    if (output.length > 2_000_000) output = output.slice(-1_000_000);
    log.write(text);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));

  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      await Promise.race([exit, sleep(8000)]);
      if (!exited) {
        child.kill('SIGKILL');
        await exit;
      }
    }
    log.end();
  };

  try {
    const deadline = Date.now() + 90000;
    let url: string | undefined;
    while (url === undefined) {
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) url = match[1];
      else if (exited) throw new Error(`${name} exited before listening:\n${output}`);
      else if (Date.now() > deadline) throw new Error(`${name} did not listen within 90 s:\n${output}`);
      else await sleep(100);
    }
    const instance: Instance = { name, url, child, logFile, output: () => output, stop };
    for (;;) {
      try {
        if ((await fetch(new URL('/healthz', url))).status === 200) break;
      } catch {
        // not yet
      }
      if (Date.now() > deadline) throw new Error(`${name}: /healthz did not answer 200 within 90 s:\n${output}`);
      await sleep(200);
    }
    return instance;
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The operator CLI against one node, as `npx schoolgate …`. */
export function cliOn(databaseUrl: string, args: string[], timeoutMs = 120000): Promise<ProcessResult> {
  return runEntry('src/cli/main.ts', args, { DATABASE_URL: databaseUrl }, { timeoutMs });
}

/** Lines of an instance's JSON log at level error (50) or above, for failure messages and the report. */
export function errorLogLines(instance: Instance): string[] {
  return instance
    .output()
    .split('\n')
    .filter((line) => /"level":\s*(5\d|6\d)/.test(line));
}

/** One step of a cluster test's clean-up: its name for the report, and what it does. */
export type CleanUpStep = [name: string, run: () => Promise<unknown>];

/**
 * Runs every clean-up step even when one fails (the cluster must be left with all nodes up and no scratch database),
 * reports each instance's error log lines, then throws once naming every step that failed.
 */
export async function runCleanUp(steps: readonly CleanUpStep[], instances: ReadonlyArray<Instance | undefined>, say: (line: string) => void, firstLineChars = 1500): Promise<void> {
  const failures: string[] = [];
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (error) {
      failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  for (const instance of instances) {
    const errors = instance ? errorLogLines(instance) : [];
    if (instance && errors.length > 0) say(`${instance.name} logged ${errors.length} error line(s); first: ${errors[0]?.slice(0, firstLineChars)}`);
  }
  if (failures.length > 0) throw new Error(`clean-up failed: ${failures.join('; ')}`);
}
