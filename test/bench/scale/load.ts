/**
 * What the scale scenarios share: the product in its own process as `npm start` runs it (test/bench/harness.ts's
 * startProcess), bounded autocannon runs at a given number of connections, and the verdict arithmetic.
 */
import os from 'node:os';
import autocannon from 'autocannon';
import type { Variant } from '../../../src/config/config.js';
import { PRODUCT_ENTRY, startProcess, type ServerProcess, type Target } from '../harness.js';

/** The variant the product runs as (SCHOOLGATE_VARIANT, as for `npm run bench`). */
export const VARIANT: Variant = process.env.SCHOOLGATE_VARIANT === 'B' ? 'B' : 'A';

export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not 2xx, plus connection errors (timeouts included): a pool that runs dry shows here. */
  failures: number;
  /** What the failures were, e.g. "503×44, 2 timeouts" (empty when none). */
  failureKinds: string;
}

function failureKinds(result: autocannon.Result): string {
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, stats]) => `${status}×${stats.count ?? 0}`);
  const timeouts = result.timeouts > 0 ? [`${result.timeouts} timeouts`] : [];
  const others = result.errors - result.timeouts > 0 ? [`${result.errors - result.timeouts} connection errors`] : [];
  return [...statuses, ...timeouts, ...others].join(', ');
}

/** One bounded run against loopback. */
export async function load(target: Target, options: { connections: number; seconds: number }): Promise<LoadFigures> {
  const result = await autocannon({ ...target, connections: options.connections, duration: options.seconds });
  return { requestsPerSecond: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99, failures: result.non2xx + result.errors, failureKinds: failureKinds(result) };
}

/** The product on `databaseUrl`, as the bench runs it: the build (run.ts makes it), production mode, logging at info, no prune job of its own. */
export function startProduct(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startProcess(PRODUCT_ENTRY, {
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: '0',
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    SCHOOLGATE_DEMO: 'false',
    SCHOOLGATE_PRUNE_INTERVAL_SECONDS: '0',
    SCHOOLGATE_VARIANT: VARIANT,
    ...env,
  });
}

/** "−4%" / "+12%": how far `value` is from `reference`. */
export function percentFrom(reference: number, value: number): string {
  const percent = ((value - reference) / Math.max(reference, 1e-9)) * 100;
  return `${percent >= 0 ? '+' : '−'}${Math.abs(percent).toFixed(0)}%`;
}

export function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

/** 10000 → "10k", 1000000 → "1M". */
export function shortCount(value: number): string {
  if (value >= 1_000_000) return `${Number((value / 1_000_000).toFixed(1))}M`;
  if (value >= 1_000) return `${Number((value / 1_000).toFixed(1))}k`;
  return String(value);
}

export function seconds(sinceMs: number): string {
  return `${((performance.now() - sinceMs) / 1000).toFixed(1)} s`;
}
