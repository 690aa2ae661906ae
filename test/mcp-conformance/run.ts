/**
 * npm run test:mcp-conformance: the MCP conformance suite (`@modelcontextprotocol/conformance`) and the MCP
 * Inspector's CLI against /mcp of the demo school, on a server this script starts (in process, scratch SQLite,
 * ephemeral port). For each revision we serve, 2025-11-25 and 2026-07-28:
 *
 * - the revision's requirement set (every server scenario it requires, and those the suite runs beside them
 *   unscored), anonymously and as Mia, the demo member (through a loopback proxy that adds her bearer token, since
 *   the suite has no header option);
 * - the authorization-server scenarios, as the demo member app, with our sign-in and consent pages driven as Mia;
 * - the Inspector's tools/list (with its --strict schema lint), resources/list and prompts/list, both identities.
 *
 * Each result is compared with test/mcp-conformance/expected.yaml: a scenario that should pass must pass every check,
 * one that does not apply must fail exactly the checks listed there (for the reason given), and one that starts
 * passing is as much a failure as one that stops. Prints one table, then every unexpected result, and exits non-zero
 * on any. MCP_CONFORMANCE_KEEP=1 keeps the suite's result files (they are kept anyway when something is unexpected).
 *
 * The verdicts come from the suite's result files (`-o`), not from its own `--expected-failures` baseline: a baseline
 * entry carries no reason, and the suite scores a scenario whose checks are only warnings or notes as passed (a
 * stateless server "passes" server-session-lifecycle with nothing tested), where here a warning is not a pass.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAuthorizationScenarios } from './authorization.js';
import { startBearerProxy, type BearerProxy } from './bearer-proxy.js';
import { killRunningChildren, listServerScenarios, readResults, runSuite } from './conformance-cli.js';
import { coverageProblems, docsProblems } from './coverage.js';
import { judge, loadExpectations, type Expectations, type Verdict } from './expectations.js';
import { inspectorListings, type InspectorListing } from './inspector.js';
import { memberAccessToken } from './member-token.js';
import { printTable, LEGEND } from './report.js';
import { startDemoSchool, type DemoSchool } from './school.js';

const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
const IDENTITIES = ['anonymous', 'member'] as const;
type Identity = (typeof IDENTITIES)[number];

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXPECTED_FILE = path.join(HERE, 'expected.yaml');
const DOCS_FILE = path.join(HERE, '..', '..', 'docs', 'mcp.md');

/** Per scenario, per suite run, per Inspector call: generous for a busy two-core machine, far above a normal run. */
const SCENARIO_TIMEOUT_MS = 60_000;
const SUITE_RUN_TIMEOUT_MS = 150_000;
const AUTHORIZATION_TIMEOUT_MS = 90_000;
const INSPECTOR_TIMEOUT_MS = 60_000;
/** The whole run stops here, whatever is left. */
const DEADLINE_MS = 9 * 60_000;

const problems: string[] = [];
let passed = 0;
let failed = 0;

/** One compared result: a scenario at one revision as one identity, or one Inspector listing. */
function record(where: string, verdict: { ok: boolean; problems: string[] }): void {
  if (verdict.ok) passed += 1;
  else {
    failed += 1;
    for (const message of verdict.problems) problems.push(`${where}: ${message}`);
  }
}

/** Anything else that is wrong (expected.yaml out of date, the docs table, a run that saved nothing) fails the run too. */
function problem(message: string): void {
  failed += 1;
  problems.push(message);
}

/** A port nothing listens on now, for the suite's OAuth callback. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The suite's requirement set for each revision (`--requirements`): the scenarios that revision requires, frozen at its
 * release, plus those it runs without scoring (pending ones, extensions, ones added after the release), each at that
 * revision's wire. Every scenario `conformance list` tags with the revision must be among them.
 */
async function serverScenarios(expectations: Expectations, listed: Map<string, string[]>, targets: Record<Identity, string>, resultsDir: string): Promise<Map<string, Map<string, Verdict>>> {
  // scenario → "revision identity" → verdict
  const table = new Map<string, Map<string, Verdict>>();
  for (const revision of REVISIONS) {
    for (const identity of IDENTITIES) {
      const where = `server scenarios ${revision} ${identity}`;
      const outputDir = path.join(resultsDir, `server-${revision}-${identity}`);
      const started = Date.now();
      const run = await runSuite(['server', '--url', `${targets[identity]}/mcp`, '--requirements', revision, '--timeout', String(SCENARIO_TIMEOUT_MS), '-o', outputDir], {
        timeoutMs: SUITE_RUN_TIMEOUT_MS,
      });
      process.stdout.write(`  ${where}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      if (run.timedOut) problem(`${where}: the suite did not finish within ${SUITE_RUN_TIMEOUT_MS / 1000} s`);
      const results = readResults(outputDir, 'server-');
      if (results.size === 0) {
        problem(`${where}: the suite saved no result (exit code ${String(run.exitCode)}):\n${run.output.slice(-3000)}`);
        continue;
      }
      const tagged = [...listed].filter(([scenario, tags]) => tags.includes(revision) && !expectations.notRun.has(scenario)).map(([scenario]) => scenario);
      for (const scenario of tagged) {
        if (!results.has(scenario)) problem(`${where}: the suite lists ${scenario} for ${revision}, but its requirement set did not run it`);
      }
      for (const [scenario, checks] of results) {
        if (expectations.notRun.has(scenario)) {
          problem(`${where}: the suite ran ${scenario}, which expected.yaml lists under not_run: give it a server entry`);
          continue;
        }
        const expectation = expectations.server.get(scenario)?.get(revision);
        if (expectation === undefined) {
          problem(`${where}: the suite ran ${scenario}, and expected.yaml says nothing of it for ${revision}: decide whether it applies to /mcp`);
          continue;
        }
        const verdict = judge(checks, expectation);
        record(`${scenario} (${revision}, ${identity})`, verdict);
        const row = table.get(scenario) ?? new Map<string, Verdict>();
        row.set(`${revision} ${identity}`, verdict);
        table.set(scenario, row);
      }
    }
  }
  return table;
}

async function authorizationScenarios(expectations: Expectations, origin: string, callbackPort: number, resultsDir: string): Promise<Map<string, Map<string, Verdict>>> {
  const table = new Map<string, Map<string, Verdict>>();
  for (const revision of REVISIONS) {
    const outputDir = path.join(resultsDir, `authorization-${revision}`);
    const { results, problems: runProblems } = await runAuthorizationScenarios(origin, revision, { callbackPort, outputDir, timeoutMs: AUTHORIZATION_TIMEOUT_MS });
    for (const message of runProblems) problem(`authorization scenarios ${revision}: ${message}`);
    for (const [scenario, expectation] of expectations.authorization) {
      const verdict = judge(results.get(scenario), expectation);
      record(`${scenario} (${revision}, authorization)`, verdict);
      const row = table.get(scenario) ?? new Map<string, Verdict>();
      row.set(revision, verdict);
      table.set(scenario, row);
    }
    for (const scenario of results.keys()) {
      if (!expectations.authorization.has(scenario)) problem(`authorization scenarios ${revision}: the suite ran ${scenario}, which expected.yaml does not list under authorization`);
    }
  }
  return table;
}

async function inspector(origin: string, token: string): Promise<Map<string, Map<string, InspectorListing>>> {
  const table = new Map<string, Map<string, InspectorListing>>();
  for (const revision of REVISIONS) {
    for (const identity of IDENTITIES) {
      for (const listing of await inspectorListings(origin, revision, identity === 'member' ? token : undefined, INSPECTOR_TIMEOUT_MS)) {
        record(`Inspector ${listing.method} (${revision}, ${identity})`, listing);
        const row = table.get(listing.method) ?? new Map<string, InspectorListing>();
        row.set(`${revision} ${identity}`, listing);
        table.set(listing.method, row);
      }
    }
  }
  return table;
}

async function main(): Promise<number> {
  const startedAt = Date.now();
  const expectations = loadExpectations(EXPECTED_FILE, REVISIONS);
  const listed = await listServerScenarios();
  for (const message of [...coverageProblems(expectations, listed), ...docsProblems(expectations, DOCS_FILE)]) problem(message);

  const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-mcp-conformance-'));
  const callbackPort = await freePort();
  let school: DemoSchool | undefined;
  let proxy: BearerProxy | undefined;
  try {
    school = await startDemoSchool({ extraMemberRedirectUri: `http://127.0.0.1:${callbackPort}/callback` });
    const token = await memberAccessToken(school.origin);
    proxy = await startBearerProxy(school, token);
    process.stdout.write(`demo school at ${school.origin}; as the member through ${proxy.origin}\n`);

    const server = await serverScenarios(expectations, listed, { anonymous: school.origin, member: proxy.origin }, resultsDir);
    const authorization = await authorizationScenarios(expectations, school.origin, callbackPort, resultsDir);
    const listings = await inspector(school.origin, token);

    const columns = REVISIONS.flatMap((revision) => IDENTITIES.map((identity) => `${revision} ${identity}`));
    const serverRows = [...server].sort(([a], [b]) => a.localeCompare(b)).map(([scenario, row]): [string, string[]] => [scenario, columns.map((column) => row.get(column)?.cell ?? '·')]);
    printTable('server scenario', columns, serverRows);
    printTable('authorization scenario', [...REVISIONS], [...authorization].map(([scenario, row]) => [scenario, REVISIONS.map((revision) => row.get(revision)?.cell ?? '·')]));
    printTable('MCP Inspector --cli', columns, [...listings].map(([method, row]) => [method + (method === 'tools/list' ? ' --strict' : ''), columns.map((column) => {
      const listing = row.get(column);
      return listing === undefined ? '·' : `${listing.ok ? '✓' : '✗'} ${listing.count ?? '?'} listed`;
    })]));
    process.stdout.write(`\n${LEGEND}\n`);
  } finally {
    await proxy?.close();
    await school?.stop();
    if (problems.length > 0 || process.env.MCP_CONFORMANCE_KEEP === '1') process.stdout.write(`the suite's result files: ${resultsDir}\n`);
    else fs.rmSync(resultsDir, { recursive: true, force: true });
  }

  if (problems.length > 0) process.stdout.write(`\nUnexpected:\n${problems.map((problem) => `  - ${problem}`).join('\n')}\n`);
  process.stdout.write(`\nfinished in ${((Date.now() - startedAt) / 1000).toFixed(0)} s\n`);
  // The plain closing line CI reads.
  process.stdout.write(`mcp-conformance: ${passed} passed, ${failed} failed\n`);
  return problems.length === 0 ? 0 : 1;
}

const deadline = setTimeout(() => {
  process.stderr.write(`test:mcp-conformance: still running after ${DEADLINE_MS / 60_000} minutes; stopping\n`);
  killRunningChildren();
  process.exit(1);
}, DEADLINE_MS);
deadline.unref();

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`test:mcp-conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
