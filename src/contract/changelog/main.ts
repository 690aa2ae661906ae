import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveToday } from '../diff/clock.js';
import { contractChanges } from '../diff/collect.js';
import { readRevision, readWorkingTree, UsageError } from '../diff/sources.js';
import { defaultFromRef } from './default-range.js';
import { insertSection } from './file.js';
import { changelogSection } from './section.js';

/**
 * `npm run changelog -- [FROM_REF [TO_REF]] [--today YYYY-MM-DD] [--stdout] [--file FILE] [--repo DIR]`
 * (docs/versioning.md): the contract changes from FROM_REF (default: where the release in progress starts,
 * default-range.ts) to TO_REF (default: the working tree), as the section of CHANGELOG.md clients read, headed with
 * package.json's version and the date. Exit 0: written; 2: usage error.
 */

const USAGE = 'usage: npm run changelog -- [FROM_REF [TO_REF]] [--today YYYY-MM-DD] [--stdout] [--file FILE] [--repo DIR]';

/** package.json's version on the TO side; null when there is none (the heading then names the range). */
function versionAt(repo: string, ref: string | undefined): string | null {
  try {
    const text = ref === undefined ? fs.readFileSync(path.join(repo, 'package.json'), 'utf8') : execFileSync('git', ['show', `${ref}:package.json`], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' ? version : null;
  } catch {
    return null;
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { today: { type: 'string' }, stdout: { type: 'boolean', default: false }, file: { type: 'string' }, repo: { type: 'string' } } });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (positionals.length > 2) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const repo = path.resolve(values.repo ?? process.cwd());
  try {
    const fromRef = positionals[0] ?? defaultFromRef(repo, values.file ?? 'CHANGELOG.md');
    const toRef = positionals[1];
    const today = resolveToday(values.today);
    const base = readRevision(repo, fromRef);
    const head = toRef === undefined ? readWorkingTree(repo) : readRevision(repo, toRef);
    const changes = await contractChanges(base, head, { today });
    const to = toRef ?? 'working tree';
    const section = changelogSection({ range: `${fromRef}..${to}`, from: fromRef, to, version: versionAt(repo, toRef), date: today, changes });
    if (values.stdout) {
      process.stdout.write(section);
      return 0;
    }
    const file = path.resolve(repo, values.file ?? 'CHANGELOG.md');
    const { text, replaced } = insertSection(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null, section, `${fromRef}..${to}`);
    fs.writeFileSync(file, text);
    process.stdout.write(`changelog: ${replaced ? 'replaced' : 'added'} the section for ${fromRef}..${to} in ${path.relative(repo, file) || file}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`changelog: ${error.message}\n`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
