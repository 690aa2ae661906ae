import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../diff/sources.js';
import { RANGE_MARKER } from './section.js';

/**
 * FROM_REF when none is given (docs/versioning.md): where the release being written starts.
 *
 * - The newest generated section of CHANGELOG.md: its FROM when it runs to the working tree (the release in progress:
 *   re-running refreshes its section), else its TO (the next release starts where that one ended);
 * - the latest tag reachable from HEAD, when it is newer than that (a release was tagged since);
 * - neither: a usage error asking for FROM_REF.
 */

function git(repo: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

function isRevision(repo: string, ref: string): boolean {
  return git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]) !== null;
}

/** The start of the next section after the newest one in the changelog, or null. */
function fromChangelog(repo: string, file: string): string | null {
  if (!fs.existsSync(file)) return null;
  const marker = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .find((line) => line.startsWith(RANGE_MARKER));
  const range = marker?.slice(RANGE_MARKER.length).replace(/\s*-->\s*$/, '');
  const [from, to] = range?.split('..') ?? [];
  const start = to === 'working tree' ? from : to;
  return start !== undefined && start !== '' && isRevision(repo, start) ? start : null;
}

export function defaultFromRef(repo: string, changelogFile: string): string {
  const section = fromChangelog(repo, path.resolve(repo, changelogFile));
  const tag = git(repo, ['describe', '--tags', '--abbrev=0', 'HEAD']);
  if (section !== null && tag !== null && tag !== '') {
    // The tag wins only when it comes after the section's start (a release was tagged since the section was written).
    const tagAfterSection = git(repo, ['merge-base', '--is-ancestor', section, tag]) !== null && git(repo, ['rev-parse', `${section}^{commit}`]) !== git(repo, ['rev-parse', `${tag}^{commit}`]);
    return tagAfterSection ? tag : section;
  }
  const found = section ?? (tag === '' ? null : tag);
  if (found === null) throw new UsageError('no tag and no generated section in the changelog to start from; name the start: npm run changelog -- FROM_REF');
  return found;
}
