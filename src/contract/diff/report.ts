import { SEVERITY_ORDER, type ContractChange, type Severity } from './changes.js';
import { usageNote } from './usage.js';
import { usageHeadline, type UsageSummary } from './usage-option.js';

export interface DiffReport {
  base: string;
  head: string;
  changes: ContractChange[];
  /** Allowlist entries that matched no change of this diff (safe to delete once the change has landed). */
  unusedAllowlistEntries: string[];
  summary: { breaking: number; allowed: number; dangerous: number; deprecated: number; safe: number };
  /** False when a breaking change is not on the allowlist: the command exits 1. */
  ok: boolean;
  /** With `--usage`: the traffic the changes were judged by. */
  usage?: UsageSummary;
}

/** What one change means for the run: `fail` (breaking, not allowed), `allowed` (breaking, accepted with a reason), `pass`. */
export type ChangeVerdict = 'fail' | 'allowed' | 'pass';

export function changeVerdict(change: ContractChange): ChangeVerdict {
  if (change.severity !== 'breaking') return 'pass';
  return change.allowedBecause === undefined ? 'fail' : 'allowed';
}

export function buildReport(base: string, head: string, changes: ContractChange[], allowlist: ReadonlyMap<string, string>): DiffReport {
  const rated = changes.map((change) => {
    const reason = change.severity === 'breaking' ? allowlist.get(change.id) : undefined;
    return reason === undefined ? change : { ...change, allowedBecause: reason };
  });
  rated.sort((a, b) => SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) || a.api.localeCompare(b.api) || a.where.localeCompare(b.where) || a.id.localeCompare(b.id));
  const count = (severity: Severity) => rated.filter((change) => change.severity === severity).length;
  const allowed = rated.filter((change) => change.allowedBecause !== undefined).length;
  const ids = new Set(rated.map((change) => change.id));
  return {
    base,
    head,
    changes: rated,
    unusedAllowlistEntries: [...allowlist.keys()].filter((id) => !ids.has(id)),
    summary: { breaking: count('breaking'), allowed, dangerous: count('dangerous'), deprecated: count('deprecated'), safe: count('safe') },
    ok: count('breaking') === allowed,
  };
}

/**
 * The JSON document for CI (`--format json`, docs/contract-workflow.md): the report with a verdict for the run and for
 * every change, derived last so that every rule that allows or fails a change has had its say.
 */
export interface JsonDiffReport extends Omit<DiffReport, 'changes'> {
  verdict: 'pass' | 'fail';
  changes: (ContractChange & { verdict: ChangeVerdict })[];
}

export function jsonReport(report: DiffReport): JsonDiffReport {
  const changes = report.changes.map((change) => ({ ...change, verdict: changeVerdict(change) }));
  return { ...report, changes, verdict: changes.some((change) => change.verdict === 'fail') ? 'fail' : 'pass' };
}

const HEADINGS: Record<Severity, string> = { breaking: 'Breaking', dangerous: 'Dangerous (review)', deprecated: 'Deprecated', safe: 'Safe' };
const APIS: Record<ContractChange['api'], string> = { graphql: 'Member GraphQL API (schema/)', openapi: 'Admin REST API (openapi/admin.yaml)', mcp: 'MCP tools (generated/mcp-tools.json)' };
const API_ORDER: readonly ContractChange['api'][] = ['graphql', 'openapi', 'mcp'];

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function verdictLine(report: DiffReport): string {
  const { summary } = report;
  const unallowed = summary.breaking - summary.allowed;
  if (unallowed > 0) return `**${plural(unallowed, 'breaking change')} not on the allowlist.** Make the change compatible, or add it to \`.ci/contract-allowlist.yaml\` with a reason.`;
  if (report.changes.length === 0) return 'No contract changes.';
  return `No unapproved breaking changes${summary.allowed > 0 ? ` (${plural(summary.allowed, 'breaking change')} allowed)` : ''}.`;
}

/** Counts per API: the table a reviewer reads before opening the details. */
function summaryTable(report: DiffReport, apis: readonly ContractChange['api'][]): string[] {
  const row = (label: string, changes: readonly ContractChange[]) => {
    const count = (severity: Severity) => changes.filter((change) => change.severity === severity).length;
    const allowed = changes.filter((change) => changeVerdict(change) === 'allowed').length;
    return `| ${label} | ${count('breaking')} | ${allowed} | ${count('dangerous')} | ${count('deprecated')} | ${count('safe')} |`;
  };
  return [
    '| API | Breaking | Allowed | Dangerous | Deprecated | Safe |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...apis.map((api) => row(APIS[api], report.changes.filter((change) => change.api === api))),
    ...(apis.length > 1 ? [row('**Total**', report.changes)] : []),
  ];
}

function changeRow(change: ContractChange): string {
  const verdict = changeVerdict(change);
  const message = `${change.allowedBecause === undefined ? change.message : `${change.message} **Allowed:** ${change.allowedBecause}`}${usageNote(change)}`;
  const marker = verdict === 'fail' ? '**Fails.** ' : '';
  const variants = change.api === 'openapi' ? '' : ` ${(change.variants ?? []).join(', ')} |`;
  return `| \`${cell(change.where)}\` | ${marker}${cell(message)} |${variants} \`${cell(change.id)}\` |`;
}

/**
 * Markdown for a pull-request comment: a verdict line, a summary table, then per API a collapsible `<details>` block
 * with the changes grouped breaking, dangerous, deprecated, safe (open when the API has a change that fails the run).
 */
export function markdownReport(report: DiffReport): string {
  const { summary } = report;
  const lines = [`## Contract diff: ${report.base} → ${report.head}`, '', verdictLine(report), ''];
  if (report.usage !== undefined) lines.push(usageHeadline(report.usage), '');
  lines.push(`Breaking: ${summary.breaking} (allowed: ${summary.allowed}) · dangerous: ${summary.dangerous} · deprecated: ${summary.deprecated} · safe: ${summary.safe}`);
  const apis = API_ORDER.filter((api) => report.changes.some((change) => change.api === api));
  if (apis.length > 0) lines.push('', ...summaryTable(report, apis));
  for (const api of apis) {
    const changes = report.changes.filter((change) => change.api === api);
    const fails = changes.some((change) => changeVerdict(change) === 'fail');
    lines.push('', `<details${fails ? ' open' : ''}><summary>${APIS[api]}: ${plural(changes.length, 'change')}</summary>`, '', `### ${APIS[api]}`);
    for (const severity of SEVERITY_ORDER) {
      const group = changes.filter((change) => change.severity === severity);
      if (group.length === 0) continue;
      lines.push('', `#### ${HEADINGS[severity]} (${group.length})`, '', api === 'openapi' ? '| Where | Change | Id |' : '| Where | Change | Variants | Id |', api === 'openapi' ? '| --- | --- | --- |' : '| --- | --- | --- | --- |');
      lines.push(...group.map(changeRow));
    }
    lines.push('', '</details>');
  }
  if (report.unusedAllowlistEntries.length > 0) {
    lines.push('', `Allowlist entries that match no change here: ${report.unusedAllowlistEntries.map((id) => `\`${id}\``).join(', ')}.`);
  }
  return `${lines.join('\n')}\n`;
}

/** The report in the format `--format` asks for. */
export function renderReport(report: DiffReport, format: 'markdown' | 'json'): string {
  return format === 'json' ? `${JSON.stringify(jsonReport(report), null, 2)}\n` : markdownReport(report);
}
