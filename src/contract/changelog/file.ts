import { RANGE_MARKER } from './section.js';

/**
 * Puts a section into CHANGELOG.md: at the top, below the title and its introduction; or, when a section for the same
 * range is there already, in its place (re-running the command does not add a second one).
 */

export const CHANGELOG_TITLE = '# Changelog';

const INTRODUCTION =
  'Changes to the contracts clients depend on: the member GraphQL API (variants A and B) and the admin REST API. ' +
  'New sections are written by `npm run changelog` from the contracts; how fields and operations are deprecated and removed is in [docs/versioning.md](docs/versioning.md).';

function startsSection(line: string): boolean {
  return line.startsWith(RANGE_MARKER) || line.startsWith('## ');
}

export function insertSection(existing: string | null, section: string, range: string): { text: string; replaced: boolean } {
  const lines = (existing ?? `${CHANGELOG_TITLE}\n\n${INTRODUCTION}\n`).replace(/\n+$/, '').split('\n');
  const sectionLines = section.replace(/\n+$/, '').split('\n');
  const own = lines.indexOf(`${RANGE_MARKER}${range} -->`);
  if (own >= 0) {
    // The section runs from its marker past its own heading to the next section's first line.
    const next = lines.findIndex((line, index) => index > own + 1 && startsSection(line));
    const end = next < 0 ? lines.length : next;
    lines.splice(own, end - own, ...sectionLines, ...(next < 0 ? [] : ['']));
    return { text: `${lines.join('\n')}\n`, replaced: true };
  }
  const first = lines.findIndex(startsSection);
  if (first < 0) lines.push('', ...sectionLines);
  else lines.splice(first, 0, ...sectionLines, '');
  return { text: `${lines.join('\n')}\n`, replaced: false };
}
