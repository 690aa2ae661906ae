import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../src/shared/paths.js';

/** A scratch copy of the contract sources and generated/, sharing node_modules, so the test can edit the copy. */
function scratchCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-codegen-'));
  for (const entry of ['schema', 'openapi', 'generated', 'codegen.ts', 'package.json', '.ci/codegen-check', 'src/graphql/mappers']) {
    fs.cpSync(path.join(PROJECT_ROOT, entry), path.join(dir, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

function codegenCheck(dir: string) {
  return spawnSync('bash', ['.ci/codegen-check'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
}

describe('npm run codegen:check', function () {
  this.timeout(60000);
  let dir: string;
  beforeEach(() => {
    dir = scratchCopy();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('passes when generated/ matches schema/ and openapi/', () => {
    const result = codegenCheck(dir);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.contain('generated/ is up to date');
  });

  it('fails with a readable diff when a .graphql file changed without regenerating', () => {
    const file = path.join(dir, 'schema', 'viewer.graphql');
    fs.appendFileSync(file, '\nextend type Viewer {\n  "Added by the codegen-check test."\n  favouriteColour: String\n}\n');
    const result = codegenCheck(dir);
    expect(result.status).to.equal(1);
    expect(result.stdout).to.match(/^\+.*favouriteColour/m);
    expect(result.stderr).to.contain("generated/ is stale");
  });

  it('fails when the OpenAPI document changed without regenerating', () => {
    const file = path.join(dir, 'openapi', 'admin.yaml');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('operationId: getSchool', 'operationId: readSchool'));
    const result = codegenCheck(dir);
    expect(result.status).to.equal(1);
    expect(result.stdout).to.contain('readSchool');
  });
});
