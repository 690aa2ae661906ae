import fs from 'node:fs';
import { parse } from 'yaml';
import type { Check, CheckStatus } from './conformance-cli.js';

/** What a scenario should do at one revision: pass, or fail exactly the listed checks for the given reason. */
export type Expectation = { kind: 'pass' } | { kind: 'failing'; reason: string; failing: string[] };

export interface Expectations {
  /** Server scenarios by name, then by revision. */
  server: Map<string, Map<string, Expectation>>;
  /** Extension scenarios we do not run, with why. */
  notRun: Map<string, string>;
  authorization: Map<string, Expectation>;
}

export interface Verdict {
  /** As expected. */
  ok: boolean;
  /** For the table: `✓ 3/3`, `– 1/2`, `✗ 1/2` (checks that succeeded of those that are more than a note). */
  cell: string;
  /** Why it is not as expected, one line each. */
  problems: string[];
}

const REVISION = /^\d{4}-\d{2}-\d{2}$/;

function expectationOf(raw: unknown, where: string): Expectation {
  if (raw === 'pass') return { kind: 'pass' };
  if (typeof raw === 'object' && raw !== null) {
    const { reason, failing } = raw as { reason?: unknown; failing?: unknown };
    if (typeof reason === 'string' && reason !== '' && Array.isArray(failing) && failing.length > 0 && failing.every((id) => typeof id === 'string')) {
      return { kind: 'failing', reason, failing: failing as string[] };
    }
  }
  throw new Error(`${where}: expected "pass" or { reason, failing: [check ids] }`);
}

/** Reads expected.yaml; a malformed entry is an error naming it, not a silent pass. */
export function loadExpectations(file: string, revisions: readonly string[]): Expectations {
  const document = parse(fs.readFileSync(file, 'utf8'), { merge: true }) as { server?: Record<string, unknown>; not_run?: Record<string, unknown>; authorization?: Record<string, unknown> };
  const server = new Map<string, Map<string, Expectation>>();
  for (const [scenario, raw] of Object.entries(document.server ?? {})) {
    const byRevision = new Map<string, Expectation>();
    const keys = typeof raw === 'object' && raw !== null ? Object.keys(raw) : [];
    if (keys.length > 0 && keys.every((key) => REVISION.test(key))) {
      for (const [revision, entry] of Object.entries(raw as Record<string, unknown>)) byRevision.set(revision, expectationOf(entry, `${file}: server.${scenario}.${revision}`));
    } else {
      const expectation = expectationOf(raw, `${file}: server.${scenario}`);
      for (const revision of revisions) byRevision.set(revision, expectation);
    }
    server.set(scenario, byRevision);
  }
  const notRun = new Map<string, string>();
  for (const [scenario, reason] of Object.entries(document.not_run ?? {})) {
    if (typeof reason !== 'string' || reason === '') throw new Error(`${file}: not_run.${scenario} needs a reason`);
    notRun.set(scenario, reason);
  }
  const authorization = new Map<string, Expectation>();
  for (const [scenario, raw] of Object.entries(document.authorization ?? {})) authorization.set(scenario, expectationOf(raw, `${file}: authorization.${scenario}`));
  return { server, notRun, authorization };
}

const PASSING: ReadonlySet<CheckStatus> = new Set(['SUCCESS', 'INFO', 'SKIPPED']);

/**
 * One status per check id, most severe first: ids repeat within a scenario (one per probe), and a check passes only
 * if every occurrence does.
 */
function statusById(checks: readonly Check[]): Map<string, CheckStatus> {
  const severity: Record<CheckStatus, number> = { ERROR: 5, FAILURE: 4, WARNING: 3, SKIPPED: 2, INFO: 1, SUCCESS: 0 };
  const byId = new Map<string, CheckStatus>();
  for (const check of checks) {
    const known = byId.get(check.id);
    if (known === undefined || severity[check.status] > severity[known]) byId.set(check.id, check.status);
  }
  return byId;
}

function firstMessage(checks: readonly Check[], id: string): string {
  const check = checks.find((candidate) => candidate.id === id && !PASSING.has(candidate.status));
  return check?.errorMessage ? `: ${check.errorMessage.slice(0, 240)}` : '';
}

/** Compares one scenario's checks with its expectation. */
export function judge(checks: readonly Check[] | undefined, expectation: Expectation): Verdict {
  if (checks === undefined) return { ok: false, cell: '✗ no result', problems: ['the suite saved no result for it'] };
  const byId = statusById(checks);
  // Counted as the suite's own summary counts them: checks that succeeded of those that are more than a note.
  const scored = checks.filter((check) => check.status !== 'INFO' && check.status !== 'SKIPPED');
  const counts = `${scored.filter((check) => check.status === 'SUCCESS').length}/${scored.length}`;
  const problems: string[] = [];
  const allowedToFail = new Set(expectation.kind === 'failing' ? expectation.failing : []);
  for (const [id, status] of byId) {
    if (!PASSING.has(status) && !allowedToFail.has(id)) problems.push(`check ${id} is ${status}${firstMessage(checks, id)}`);
  }
  if (expectation.kind === 'pass') {
    if (![...byId.values()].includes('SUCCESS')) problems.push('no check succeeded (only notes): the suite found nothing to test');
    return { ok: problems.length === 0, cell: `${problems.length === 0 ? '✓' : '✗'} ${counts}`, problems };
  }
  for (const id of expectation.failing) {
    const status = byId.get(id);
    // A note (INFO/SKIPPED) is how the suite says it could not test something; only SUCCESS means the reason is gone.
    if (status === undefined) problems.push(`check ${id}, expected not to pass (${expectation.reason}), is no longer reported: the scenario changed, revisit its entry`);
    else if (status === 'SUCCESS') problems.push(`check ${id} now passes although expected not to (${expectation.reason}): update its entry (to "pass" if nothing is left)`);
  }
  return { ok: problems.length === 0, cell: `${problems.length === 0 ? '–' : '✗'} ${counts}`, problems };
}
