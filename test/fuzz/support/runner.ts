/**
 * Runs each family's generator through fast-check: every generated request is sent, its answer checked, and a
 * failing request is shrunk to a minimal one. A family keeps going after a failure (up to MAX_ROUNDS distinct ones),
 * so one run reports every distinct failure it finds rather than only the first.
 */
import fc from 'fast-check';
import { formatViolation, jsonRpcInternalError, leakViolations, statusViolation, type CheckName, type Violation } from './checks.js';
import type { ErrorLog } from './fixtures.js';
import { NoResponseError, send, type Family, type FuzzRequest, type FuzzResponse, type Target } from './http-client.js';
import { excerpt } from './hostile.js';
import { countChanges, type RowCounts } from './row-counts.js';

export const SLOW_MS = 2000;
/** FUZZ_TRACE=1 prints one line per request (debugging a generator). */
const TRACE = process.env.FUZZ_TRACE === '1';
/** Distinct failures a family may report before it stops looking for more. */
const MAX_ROUNDS = 8;
/** Re-sends of a slow request: only a request slow every time counts (a shared 2-core machine has hiccups). */
const SLOW_RETRIES = 2;

export interface FamilyFigures {
  /** Requests sent, shrinking and re-sends included. */
  requests: number;
  /** Generated runs fast-check asked for. */
  runs: number;
  statuses: Map<number, number>;
  latencies: number[];
  noAnswer: number;
  shrinks: number;
}

export interface Failure {
  store: string;
  family: Family;
  check: CheckName;
  signature: string;
  request: FuzzRequest;
  /** The request that first failed, before shrinking. */
  original: FuzzRequest;
  violations: Violation[];
  status: number | null;
  body: string;
  serverLog: string[];
  /** The environment that replays the family's run. */
  replay: string;
  /** fast-check's seed and path of the counterexample within that run. */
  seed: number;
  path: string;
  shrinks: number;
}

interface Probe {
  response: FuzzResponse | null;
  violations: Violation[];
  serverLog: string[];
}

class PropertyFailure extends Error {
  constructor(
    readonly request: FuzzRequest,
    readonly probe: Probe,
    readonly fresh: Violation[],
  ) {
    super(fresh.map((violation) => `${violation.check}: ${violation.message}`).join('; '));
  }
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

export class FuzzRunner {
  readonly figures = new Map<Family, FamilyFigures>();
  readonly failures: Failure[] = [];
  private lastCounts: RowCounts | null = null;

  constructor(
    private readonly store: string,
    private readonly target: Target,
    private readonly countRows: () => Promise<RowCounts>,
    private readonly errorLog: ErrorLog,
  ) {}

  private figuresOf(family: Family): FamilyFigures {
    let figures = this.figures.get(family);
    if (!figures) {
      figures = { requests: 0, runs: 0, statuses: new Map(), latencies: [], noAnswer: 0, shrinks: 0 };
      this.figures.set(family, figures);
    }
    return figures;
  }

  private async sendCounted(request: FuzzRequest): Promise<FuzzResponse | NoResponseError> {
    const figures = this.figuresOf(request.family);
    figures.requests += 1;
    try {
      const response = await send(request, this.target);
      figures.statuses.set(response.status, (figures.statuses.get(response.status) ?? 0) + 1);
      figures.latencies.push(response.elapsedMs);
      return response;
    } catch (error) {
      if (!(error instanceof NoResponseError)) throw error;
      figures.noAnswer += 1;
      return error;
    }
  }

  /** Sends one request and checks every property of its answer. */
  async probe(request: FuzzRequest): Promise<Probe> {
    const before = this.lastCounts ?? (await this.countRows());
    let answer = await this.sendCounted(request);
    const violations: Violation[] = [];
    if (!(answer instanceof NoResponseError) && answer.elapsedMs >= SLOW_MS) {
      // Slow once may be the machine; slow every time is the server.
      const times = [answer.elapsedMs];
      for (let attempt = 0; attempt < SLOW_RETRIES && Math.min(...times) >= SLOW_MS; attempt += 1) {
        const again = await this.sendCounted(request);
        if (again instanceof NoResponseError) break;
        times.push(again.elapsedMs);
        answer = again;
      }
      if (Math.min(...times) >= SLOW_MS) violations.push({ check: 'slow', message: `answered in ${times.map((ms) => Math.round(ms)).join(', ')} ms (limit ${SLOW_MS})` });
    }
    const after = await this.countRows();
    this.lastCounts = after;
    if (TRACE) console.log(`[${request.family}] ${request.method} ${excerpt(request.target, 100)}${request.body ? ` ${excerpt(request.body.toString('utf8'), 160)}` : ''} → ${answer instanceof NoResponseError ? answer.message : `${answer.status} ${excerpt(answer.text, 400)}`}`);
    if (answer instanceof NoResponseError) {
      // Node may close the socket on a request it refuses outright (a body far past the limit); anything else is a fault.
      if (!request.breaksFraming) violations.push({ check: 'no-answer', message: answer.message });
      return { response: null, violations, serverLog: [] };
    }
    const response = answer;
    const status = statusViolation(response) ?? jsonRpcInternalError(request.family, response);
    if (status) violations.push(status);
    violations.push(...leakViolations(request, response));
    const format = formatViolation(request.family, request, response);
    if (format) violations.push(format);
    const changes = countChanges(before, after);
    const mayWrite = request.writes === 'on-success' && response.status >= 200 && response.status < 300 && !['GET', 'HEAD', 'OPTIONS'].includes(request.method);
    if (changes.length > 0 && !mayWrite) violations.push({ check: 'row-counts', message: `rows changed on a ${response.status} answer: ${changes.join(', ')}` });
    const serverLog = response.status >= 500 ? this.errorLog.take(response.requestId) : [];
    if (response.status < 500) this.errorLog.clear();
    return { response, violations, serverLog };
  }

  private signature(request: FuzzRequest, violation: Violation, response: FuzzResponse | null): string {
    const detail =
      violation.check === 'server-error' || violation.check === 'format'
        ? String(response?.status ?? '')
        : violation.check === 'row-counts'
          ? violation.message.replace(/: \d+ → \d+/g, '').replace(/^rows changed on a \d+ answer: /, '')
          : violation.check === 'stack-trace' || violation.check === 'sql'
            ? violation.message.split(':')[0] ?? ''
            : '';
    return `${request.family}|${violation.check}|${request.route}|${detail}`;
  }

  /** Runs `runs` generated requests of one family (plus shrinking), collecting every distinct failure. */
  async runFamily(family: Family, arbitrary: fc.Arbitrary<FuzzRequest>, runs: number, seed: number, replay: string): Promise<void> {
    const known = new Set<string>();
    const figures = this.figuresOf(family);
    let remaining = runs;
    for (let round = 0; remaining > 0 && round < MAX_ROUNDS; round += 1) {
      let original: FuzzRequest | null = null;
      let requestsBeforeFailure = 0;
      const property = fc.asyncProperty(arbitrary, async (request) => {
        const probe = await this.probe(request);
        const fresh = probe.violations.filter((violation) => !known.has(this.signature(request, violation, probe.response)));
        if (fresh.length > 0) {
          if (original === null) {
            original = request;
            requestsBeforeFailure = figures.requests;
          }
          throw new PropertyFailure(request, probe, fresh);
        }
      });
      const roundSeed = seed + round * 7919;
      const details = await fc.check(property, { seed: roundSeed, numRuns: remaining });
      figures.runs += details.numRuns;
      if (!details.failed) return;
      const failure = details.errorInstance;
      if (!(failure instanceof PropertyFailure)) throw failure instanceof Error ? failure : new Error(String(failure));
      figures.shrinks += figures.requests - requestsBeforeFailure;
      const first = failure.fresh[0] as Violation;
      for (const violation of failure.fresh) known.add(this.signature(failure.request, violation, failure.probe.response));
      this.failures.push({
        store: this.store,
        family,
        check: first.check,
        signature: this.signature(failure.request, first, failure.probe.response),
        request: failure.request,
        original: original ?? failure.request,
        violations: failure.fresh,
        status: failure.probe.response?.status ?? null,
        body: excerpt(failure.probe.response?.text ?? '', 600),
        serverLog: failure.probe.serverLog,
        replay,
        seed: roundSeed,
        path: details.counterexamplePath ?? '',
        shrinks: details.numShrinks,
      });
      remaining -= details.numRuns;
    }
  }
}

/** A request as a reader can replay it: method, target, headers, body (long values cut, their lengths kept). */
export function describeRequest(request: FuzzRequest): string {
  const lines = [`${request.method} ${excerpt(request.target, 300)}   [${request.label}]`];
  for (const [name, value] of request.headers) lines.push(`  ${name}: ${excerpt(value, 200)}`);
  const bytes = request.raw ?? request.body;
  if (bytes !== undefined) {
    const text = bytes.toString('utf8');
    const printable = Buffer.from(text, 'utf8').equals(bytes);
    lines.push(`  body (${bytes.length} bytes${printable ? '' : ', not UTF-8'}): ${printable ? JSON.stringify(excerpt(text, 400)) : `hex ${bytes.subarray(0, 64).toString('hex')}${bytes.length > 64 ? '…' : ''}`}`);
  }
  return lines.join('\n');
}

export function describeFailure(failure: Failure): string {
  const lines = [
    `[${failure.store}] ${failure.family} — ${failure.check} — ${failure.request.route}`,
    ...failure.violations.map((violation) => `  ✗ ${violation.check}: ${violation.message}`),
    `  answer: ${failure.status ?? 'none'} ${failure.body}`,
    '  minimal request (after shrinking):',
    ...describeRequest(failure.request).split('\n').map((line) => `    ${line}`),
    `  replay: ${failure.replay} (fast-check seed ${failure.seed}, path ${failure.path}, ${failure.shrinks} shrinks)`,
  ];
  if (failure.serverLog.length > 0) lines.push('  server log:', ...failure.serverLog.flatMap((entry) => entry.split('\n').slice(0, 8)).map((line) => `    ${line}`));
  return lines.join('\n');
}
