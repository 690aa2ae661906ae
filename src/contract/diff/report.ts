import { SEVERITY_ORDER, type ContractChange, type Severity } from './changes.js';

export interface DiffReport {
  base: string;
  head: string;
  changes: ContractChange[];
  /** Allowlist entries that matched no change of this diff (safe to delete once the change has landed). */
  unusedAllowlistEntries: string[];
  summary: { breaking: number; allowed: number; dangerous: number; deprecated: number; safe: number };
  /** False when a breaking change is not on the allowlist: the command exits 1. */
  ok: boolean;
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

const HEADINGS: Record<Severity, string> = { breaking: 'Breaking', dangerous: 'Dangerous (review)', deprecated: 'Deprecated', safe: 'Safe' };
const APIS = { graphql: 'Member GraphQL API (schema/)', openapi: 'Admin REST API (openapi/admin.yaml)' } as const;

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** Markdown for a pull-request comment: a verdict, then per API the changes grouped breaking, dangerous, deprecated, safe. */
export function markdownReport(report: DiffReport): string {
  const { summary } = report;
  const lines = [`## Contract diff: ${report.base} → ${report.head}`, ''];
  const unallowed = summary.breaking - summary.allowed;
  lines.push(
    unallowed > 0
      ? `**${unallowed} breaking change${unallowed === 1 ? '' : 's'} not on the allowlist.** Make the change compatible, or add it to \`.ci/contract-allowlist.yaml\` with a reason.`
      : report.changes.length === 0
        ? 'No contract changes.'
        : `No unapproved breaking changes${summary.allowed > 0 ? ` (${summary.allowed} breaking change${summary.allowed === 1 ? '' : 's'} allowed)` : ''}.`,
    '',
    `Breaking: ${summary.breaking} (allowed: ${summary.allowed}) · dangerous: ${summary.dangerous} · deprecated: ${summary.deprecated} · safe: ${summary.safe}`,
  );
  for (const api of ['graphql', 'openapi'] as const) {
    const changes = report.changes.filter((change) => change.api === api);
    if (changes.length === 0) continue;
    lines.push('', `### ${APIS[api]}`);
    for (const severity of SEVERITY_ORDER) {
      const group = changes.filter((change) => change.severity === severity);
      if (group.length === 0) continue;
      lines.push('', `#### ${HEADINGS[severity]} (${group.length})`, '', api === 'graphql' ? '| Where | Change | Variants | Id |' : '| Where | Change | Id |', api === 'graphql' ? '| --- | --- | --- | --- |' : '| --- | --- | --- |');
      for (const change of group) {
        const message = change.allowedBecause === undefined ? change.message : `${change.message} **Allowed:** ${change.allowedBecause}`;
        const variants = api === 'graphql' ? ` ${(change.variants ?? []).join(', ')} |` : '';
        lines.push(`| \`${cell(change.where)}\` | ${cell(message)} |${variants} \`${cell(change.id)}\` |`);
      }
    }
  }
  if (report.unusedAllowlistEntries.length > 0) {
    lines.push('', `Allowlist entries that match no change here: ${report.unusedAllowlistEntries.map((id) => `\`${id}\``).join(', ')}.`);
  }
  return `${lines.join('\n')}\n`;
}
