import type { ContractChange } from '../diff/changes.js';
import { changelogKind, KIND_HEADINGS, KIND_ORDER } from './kinds.js';

/** One release's section of CHANGELOG.md, written for the people who call the APIs (docs/versioning.md). */

export interface SectionInput {
  /** `FROM..TO` as given on the command line: the key that makes re-running replace the section. */
  range: string;
  from: string;
  to: string;
  /** package.json's version on the TO side, when there is one. */
  version: string | null;
  date: string;
  changes: readonly ContractChange[];
}

const APIS = { graphql: 'Member GraphQL API', openapi: 'Admin REST API', mcp: 'MCP tools' } as const;

export const RANGE_MARKER = '<!-- changelog-range: ';

function variantNote(change: ContractChange): string {
  const variants = change.variants ?? [];
  return change.api !== 'openapi' && variants.length === 1 ? ` (variant ${variants[0]} only)` : '';
}

function entry(change: ContractChange): string {
  const where = `\`${change.where}\``;
  if (changelogKind(change) === 'deprecated') {
    const use = change.replacement === undefined ? '' : `use \`${change.replacement}\` instead; `;
    return `- ${where}${variantNote(change)}: ${use}sunset ${change.sunset ?? 'not set'}.`;
  }
  const sunset = change.sunset === undefined ? '' : ` Deprecated with sunset ${change.sunset}${change.replacement === undefined ? '' : `; use \`${change.replacement}\``}.`;
  const breaking = change.severity === 'breaking' ? '**Breaking:** ' : '';
  return `- ${breaking}${where}${variantNote(change)}: ${change.message}${sunset}`;
}

export function changelogSection(input: SectionInput): string {
  const title = input.version === null ? `${input.from} → ${input.to}` : input.version;
  const lines = [`${RANGE_MARKER}${input.range} -->`, `## ${title} — ${input.date}`, '', `Contract changes from \`${input.from}\` to ${input.to === 'working tree' ? 'the working tree' : `\`${input.to}\``}.`];
  const listed = input.changes.filter((change) => changelogKind(change) !== null);
  if (listed.length === 0) lines.push('', 'No changes to the member API, the admin API or the MCP tools contracts.');
  for (const api of ['graphql', 'openapi', 'mcp'] as const) {
    const ofApi = listed.filter((change) => change.api === api);
    if (ofApi.length === 0) continue;
    lines.push('', `### ${APIS[api]}`);
    for (const kind of KIND_ORDER) {
      const group = ofApi.filter((change) => changelogKind(change) === kind).sort((a, b) => a.where.localeCompare(b.where) || a.id.localeCompare(b.id));
      if (group.length === 0) continue;
      lines.push('', `#### ${KIND_HEADINGS[kind]}`, '', ...group.map(entry));
    }
  }
  return `${lines.join('\n')}\n`;
}
