import fs from 'node:fs';
import type { Expectations } from './expectations.js';

/**
 * expected.yaml against the suite: every scenario `conformance list --server` names must have an entry, and every
 * entry must still be a scenario, so a newer suite's scenario (or a removed one) fails the run until someone decides
 * what it means for /mcp. Returns the problems, one line each.
 */
export function coverageProblems(expectations: Expectations, listed: ReadonlyMap<string, string[]>): string[] {
  const problems: string[] = [];
  for (const scenario of listed.keys()) {
    if (!expectations.server.has(scenario) && !expectations.notRun.has(scenario)) problems.push(`expected.yaml: the suite has scenario ${scenario}, in neither server nor not_run: decide whether it applies to /mcp`);
  }
  for (const scenario of [...expectations.server.keys(), ...expectations.notRun.keys()]) {
    if (!listed.has(scenario)) problems.push(`expected.yaml: ${scenario} is no longer a scenario of the suite: remove its entry`);
  }
  return problems;
}

/**
 * docs/mcp.md's "## Conformance" section has a table of the scenarios that do not apply; every scenario expected.yaml
 * expects to fail a check (or does not run) must be in one of its rows, so the table cannot drift from the file.
 */
export function docsProblems(expectations: Expectations, docsFile: string): string[] {
  const docs = fs.readFileSync(docsFile, 'utf8');
  const start = docs.indexOf('\n## Conformance');
  if (start < 0) return [`${docsFile} has no "## Conformance" section`];
  const next = docs.indexOf('\n## ', start + 1);
  const rows = docs
    .slice(start, next < 0 ? undefined : next)
    .split('\n')
    .filter((line) => line.startsWith('| '))
    .join('\n');
  const notApplicable = [...expectations.server].filter(([, byRevision]) => [...byRevision.values()].some((expectation) => expectation.kind === 'failing')).map(([scenario]) => scenario);
  return [...notApplicable, ...expectations.notRun.keys()]
    .filter((scenario) => !rows.includes(`\`${scenario}\``))
    .map((scenario) => `docs/mcp.md, Conformance: ${scenario} is not in the table of scenarios that do not apply (expected.yaml lists it)`);
}
