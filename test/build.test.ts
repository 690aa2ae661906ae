import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../src/shared/paths.js';

interface Run {
  code: number | null;
  stderr: string;
}

function build(cwd: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(cwd, 'bin', 'build.js'), ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/**
 * `npm start` serves the build made at install time: bin/build.js --if-stale compiles only when a source is
 * newer than dist/, and starts at the same moment from one checkout build once between them, never over each other.
 * Run on a copy of the sources (node_modules linked), so the checkout's own dist/ is untouched.
 */
describe('build: only when stale, once for concurrent starts', function () {
  this.timeout(600_000);
  let copy: string;

  before(() => {
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-build-'));
    for (const entry of ['src', 'generated', 'bin']) fs.cpSync(path.join(PROJECT_ROOT, entry), path.join(copy, entry), { recursive: true });
    for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json']) fs.copyFileSync(path.join(PROJECT_ROOT, file), path.join(copy, file));
    fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  });
  after(() => fs.rmSync(copy, { recursive: true, force: true }));

  it('two starts at once: one compiles, the other waits for it; then a start compiles nothing until a source changes', async () => {
    expect((await build(copy, '--check')).code).to.equal(3);
    const [first, second] = await Promise.all([build(copy, '--if-stale'), build(copy, '--if-stale')]);
    expect([first.code, second.code]).to.deep.equal([0, 0]);
    const compiled = [first, second].filter((run) => run.stderr.includes('compiling TypeScript'));
    expect(compiled, first.stderr + second.stderr).to.have.length(1);
    expect(fs.existsSync(path.join(copy, 'dist', 'src', 'main.js'))).to.equal(true);
    expect(fs.readdirSync(copy).filter((entry) => entry.startsWith('dist.') || entry === '.build-lock')).to.deep.equal([]);

    const again = await build(copy, '--if-stale');
    expect(again).to.deep.equal({ code: 0, stderr: '' });
    expect((await build(copy, '--check')).code).to.equal(0);

    const source = path.join(copy, 'src', 'main.ts');
    const later = new Date(Date.now() + 2000);
    fs.utimesSync(source, later, later);
    expect((await build(copy, '--check')).code).to.equal(3);
  });
});
