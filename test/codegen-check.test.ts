import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { codegenScratchCopy as scratchCopy, runCodegenCheck as codegenCheck } from './support/codegen-scratch.js';

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
