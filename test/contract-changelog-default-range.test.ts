import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectPath } from '../src/shared/paths.js';
import { ContractRepo } from './support/contract-repo.js';

/**
 * `npm run changelog` without FROM_REF starts where the release in progress starts: the newest generated section of
 * CHANGELOG.md, or a release tagged since; with neither it asks for FROM_REF.
 */

const CHANGELOG = projectPath('src', 'contract', 'changelog', 'main.ts');

describe('npm run changelog without FROM_REF', function () {
  this.timeout(180_000);
  let scratch: ContractRepo;
  const run = (...args: string[]) => scratch.run(CHANGELOG, [...args, '--today', '2026-12-01']);
  const revision = (ref: string) => execFileSync('git', ['rev-parse', '--short=12', ref], { cwd: scratch.dir, encoding: 'utf8' }).trim();
  const writeChangelog = (range: string) => fs.writeFileSync(path.join(scratch.dir, 'CHANGELOG.md'), `# Changelog\n\nIntro.\n\n<!-- changelog-range: ${range} -->\n## 0.2.0 — 2026-11-30\n\nEarlier.\n`);

  beforeEach(() => {
    scratch = new ContractRepo('schoolgate-changelog-default-');
    scratch.edit('schema/courses.graphql', /(\n {2}slug: String!\n)/, '$1  "The course subtitle."\n  subtitle: String\n');
    scratch.commit('subtitle');
  });
  afterEach(() => scratch.remove());

  it('asks for FROM_REF when there is no tag and no generated section (exit 2)', () => {
    const result = run('--stdout');
    expect(result.status).to.equal(2);
    expect(result.stderr).to.include('npm run changelog -- FROM_REF');
  });

  it('starts at the latest tag', () => {
    scratch.git('tag', 'v0.1.0', 'HEAD~1');
    const result = run('--stdout');
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.include('<!-- changelog-range: v0.1.0..working tree -->').and.include('`Course.subtitle`');
  });

  it('refreshes the section in progress, and starts after a section that ends at a revision', () => {
    const base = revision('HEAD~1');
    writeChangelog(`${base}..working tree`);
    const refreshed = run();
    expect(refreshed.status, refreshed.stderr).to.equal(0);
    expect(refreshed.stdout).to.include(`replaced the section for ${base}..working tree`);

    writeChangelog(`${base}..HEAD`);
    const next = run('--stdout');
    expect(next.status, next.stderr).to.equal(0);
    expect(next.stdout).to.include('<!-- changelog-range: HEAD..working tree -->');
  });

  it('a tag newer than the section in progress wins; an older one does not', () => {
    const base = revision('HEAD~1');
    writeChangelog(`${base}..working tree`);
    scratch.commit('changelog');
    scratch.git('tag', 'v0.1.0', base);
    expect(run('--stdout').stdout).to.include(`<!-- changelog-range: ${base}..working tree -->`);
    scratch.git('tag', 'v0.2.0', 'HEAD');
    expect(run('--stdout').stdout).to.include('<!-- changelog-range: v0.2.0..working tree -->');
  });
});
