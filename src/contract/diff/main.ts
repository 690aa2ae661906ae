import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_ALLOWLIST, readAllowlist } from './allowlist.js';
import { resolveToday } from './clock.js';
import { contractChanges } from './collect.js';
import { buildReport, renderReport } from './report.js';
import { defaultBaseRef, readRevision, readWorkingTree, UsageError } from './sources.js';
import { judgeChanges, USAGE_OPTIONS, USAGE_SYNOPSIS, usageInput, usageSummary } from './usage-option.js';

/**
 * `npm run contract:diff -- [BASE_REF] [--format markdown|json] [--allowlist FILE] [--repo DIR] [--today YYYY-MM-DD]`
 * (docs/contract-workflow.md; `--json` is `--format json`): compares schema/, openapi/ and generated/mcp-tools.json at BASE_REF (default: the merge base with main) with the
 * working tree. Removals of deprecated elements are judged against `--today` (default CONTRACT_DIFF_TODAY, else the
 * real date; docs/versioning.md). Exit 0: no breaking change outside the allowlist and the passed sunsets; 1: there is
 * one; 2: usage error (unknown revision, unreadable contract, a malformed date, a bad or unreachable `--usage` export).
 * With `--usage`, breaking changes are judged by who still uses them (usage-option.ts).
 */

const USAGE = `usage: npm run contract:diff -- [BASE_REF] [--format markdown|json] [--json] [--allowlist FILE] [--repo DIR] [--today YYYY-MM-DD] ${USAGE_SYNOPSIS}`;

const FORMATS = ['markdown', 'json'] as const;

/** `--format markdown|json`; `--json` is kept as the short form of `--format json`. */
function formatOf(values: { format?: string | undefined; json?: boolean | undefined }): (typeof FORMATS)[number] {
  const format = values.format ?? (values.json === true ? 'json' : 'markdown');
  if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format ${format} is not a format: markdown or json`);
  if (values.json === true && format !== 'json') throw new UsageError(`--json and --format ${format} contradict each other`);
  return format as (typeof FORMATS)[number];
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { json: { type: 'boolean', default: false }, format: { type: 'string' }, allowlist: { type: 'string' }, repo: { type: 'string' }, today: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false }, ...USAGE_OPTIONS },
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
    const format = formatOf(values);
    const today = resolveToday(values.today);
    // Read first: a bad export stops the run before anything is compared.
    const usage = await usageInput(values);
    const baseRef = positionals[0] ?? defaultBaseRef(repo);
    const base = readRevision(repo, baseRef);
    const head = readWorkingTree(repo);
    const allowlist = readAllowlist(path.resolve(repo, values.allowlist ?? DEFAULT_ALLOWLIST));
    const changes = judgeChanges(await contractChanges(base, head, { today }), base, head, usage);
    const report = buildReport(base.label, head.label, changes, allowlist);
    if (usage !== null) report.usage = usageSummary(usage, report.changes);
    process.stdout.write(renderReport(report, format));
    return report.ok ? 0 : 1;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`contract:diff: ${error.message}\n`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
