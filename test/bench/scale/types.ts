/**
 * The shape of an `npm run bench:scale` scenario (test/bench/scale/run.ts runs them). A scenario measures how one
 * cost grows with one quantity (rows, sites, members, users, connections) and answers series of points: the runner
 * writes each series as a table in docs/performance/scale.md and as an SVG plot (both stores on one plot).
 */

/** One measurement: `value` (e.g. req/s or users/s) at `x` (e.g. rows in token_pairs), with its p99 when it has one. */
export interface ScalePoint {
  x: number;
  value: number;
  p99Ms?: number;
  note?: string;
}

/** One curve: the same `id` on both stores is drawn on one plot. */
export interface ScaleSeries {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  /** Log scale on x (sizes that grow by factors of 10). */
  logX?: boolean;
  store: 'mysql' | 'sqlite';
  points: ScalePoint[];
  /** The target and whether it is met, e.g. "within 15% of 10k: yes (−4%)". */
  verdict?: string;
}

/** What a scenario gets: the store to use, whether to run tiny (SCALE_QUICK=1: seconds, every code path) and a log line writer. */
export interface ScaleContext {
  kind: 'mysql' | 'sqlite';
  quick: boolean;
  log(line: string): void;
}

export type ScaleScenario = { name: string; run(context: ScaleContext): Promise<ScaleSeries[]> };
