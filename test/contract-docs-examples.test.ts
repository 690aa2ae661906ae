import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectPath } from '../src/shared/paths.js';

/**
 * Every `npm run contract:diff …` and `npm run changelog …` line in the code blocks of the docs (above all the contract
 * guides, contract-workflow.md and versioning.md) and of the README runs as written, in a real clone of this
 * repository (so that `main`, `HEAD~1` and the commit history exist), with the tools, guides and allowlist of the
 * working tree laid over it. Exit 0 or 1 is a verdict on the contracts; 2 is a usage error: the example is wrong.
 */

/** The guides that must have examples; every Markdown file of docs/ and the README is searched. */
const GUIDES = ['docs/contract-workflow.md', 'docs/versioning.md'];
const SEARCHED = [
  'README.md',
  ...fs
    .readdirSync(projectPath('docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => path.join('docs', file))
    .sort(),
];
const TOOLS = /^npm run (contract:diff|changelog)\b/;
/** What the working tree contributes to the clone: the tools and what their examples read. */
const OVERLAY = ['src', 'docs', '.ci', 'package.json', 'tsconfig.json'];

interface Example {
  guide: string;
  line: number;
  command: string;
}

/** The command lines of a guide's fenced code blocks, without a prompt (`$ `) or a trailing comment. */
function commandExamples(guide: string, text: string): Example[] {
  const examples: Example[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, index) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (opening) {
      const marker = opening[1] ?? '';
      if (fence === null) fence = marker;
      else if (marker.startsWith(fence)) fence = null;
      return;
    }
    if (fence === null) return;
    const command = raw
      .trim()
      .replace(/^\$\s+/, '')
      .replace(/\s+#\s.*$/, '')
      .trim();
    if (TOOLS.test(command)) examples.push({ guide, line: index + 1, command });
  });
  return examples;
}

describe('the contract guides: every contract:diff and changelog example runs as written', function () {
  this.timeout(20 * 60_000);
  let clone: string;
  const examples = SEARCHED.flatMap((guide) => commandExamples(guide, fs.readFileSync(projectPath(guide), 'utf8')));

  before(() => {
    clone = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-docs-examples-'));
    execFileSync('git', ['clone', '-q', projectPath(), clone], { stdio: 'ignore' });
    for (const entry of OVERLAY) {
      fs.rmSync(path.join(clone, entry), { recursive: true, force: true });
      fs.cpSync(projectPath(entry), path.join(clone, entry), { recursive: true });
    }
    fs.symlinkSync(projectPath('node_modules'), path.join(clone, 'node_modules'), 'dir');
  });
  after(() => fs.rmSync(clone, { recursive: true, force: true }));

  it('finds the examples of both guides', () => {
    for (const guide of GUIDES) expect(examples.filter((example) => example.guide === guide), guide).to.have.length.greaterThan(1);
    expect(examples.some((example) => example.command.startsWith('npm run changelog'))).to.equal(true);
  });

  for (const example of examples) {
    it(`${example.guide}:${example.line}: ${example.command}`, () => {
      // Usage fetched from a live instance names a placeholder origin; the same options over a file are examples too.
      if (/--usage\s+https?:\/\//.test(example.command)) return;
      const result = spawnSync('bash', ['-c', example.command], { cwd: clone, encoding: 'utf8', env: { ...process.env, CONTRACT_DIFF_TODAY: '2026-12-01', npm_config_update_notifier: 'false' } });
      expect(result.status, `${example.command}\n${result.stderr}`).to.be.oneOf([0, 1]);
      expect(result.stdout.trim(), result.stderr).not.to.equal('');
    });
  }
});
