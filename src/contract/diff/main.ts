import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_ALLOWLIST, readAllowlist } from './allowlist.js';
import { resolveToday } from './clock.js';
import { contractChanges } from './collect.js';
import { buildReport, markdownReport } from './report.js';
import { defaultBaseRef, readRevision, readWorkingTree, UsageError } from './sources.js';

/**
 * `npm run contract:diff -- [BASE_REF] [--json] [--allowlist FILE] [--repo DIR] [--today YYYY-MM-DD]`
 * (docs/contract-workflow.md): compares schema/ and openapi/ at BASE_REF (default: the merge base with main) with the
 * working tree. Removals of deprecated elements are judged against `--today` (default CONTRACT_DIFF_TODAY, else the
 * real date; docs/versioning.md). Exit 0: no breaking change outside the allowlist and the passed sunsets; 1: there is
 * one; 2: usage error (unknown revision, unreadable contract, a malformed date).
 */

const USAGE = 'usage: npm run contract:diff -- [BASE_REF] [--json] [--allowlist FILE] [--repo DIR] [--today YYYY-MM-DD]';

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { json: { type: 'boolean', default: false }, allowlist: { type: 'string' }, repo: { type: 'string' }, today: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
    });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length > 1) {
    process.stderr.write(`one BASE_REF at most\n${USAGE}\n`);
    return 2;
  }
  const repo = path.resolve(values.repo ?? process.cwd());
  try {
    const today = resolveToday(values.today);
    const baseRef = positionals[0] ?? defaultBaseRef(repo);
    const base = readRevision(repo, baseRef);
    const head = readWorkingTree(repo);
    const allowlist = readAllowlist(path.resolve(repo, values.allowlist ?? DEFAULT_ALLOWLIST));
    const changes = await contractChanges(base, head, { today });
    const report = buildReport(base.label, head.label, changes, allowlist);
    process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : markdownReport(report));
    return report.ok ? 0 : 1;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`contract:diff: ${error.message}\n`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
