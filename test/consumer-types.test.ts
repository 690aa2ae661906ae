import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { findUserByEmail } from '../src/accounts/users.js';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { projectPath } from '../src/shared/paths.js';
import { renameSchool } from './consumer/src/admin-console.js';
import { loadCoursePages, loadNextMeetingStart, loadPaymentLines } from './consumer/src/member-app.js';
import { issueToken } from './support/admin.js';
import { describeEachDatabase } from './support/databases.js';
import { memberToken } from './support/member-api.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * Types for consumers: a small frontend project in test/consumer/ (bundler resolution, DOM types,
 * exactOptionalPropertyTypes) compiles against generated/client/member-a (graphql-codegen's client preset over
 * schema/operations/) and generated/admin-api.ts with openapi-fetch; the same project with typical mistakes does not
 * compile, at exactly the marked lines; and the typed clients work against a live server.
 */

const TSC = projectPath('node_modules', '.bin', 'tsc');

function compile(project: string): { status: number | null; output: string } {
  const result = spawnSync(TSC, ['-p', projectPath('test', 'consumer', project)], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('consumer types: a frontend project compiles against generated/', function () {
  this.timeout(120_000);

  it('compiles the member app and the operator console with no errors', () => {
    const { status, output } = compile('tsconfig.json');
    expect(output).to.equal('');
    expect(status).to.equal(0);
  });

  it('reports every marked mistake, and nothing else', () => {
    const file = projectPath('test', 'consumer', 'broken', 'mistakes.ts');
    const marked = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) => (line.includes('// MISTAKE:') ? [index + 1] : []));
    expect(marked).to.have.length(6);
    const { status, output } = compile('tsconfig.broken.json');
    expect(status).to.not.equal(0);
    const reported = [...new Set([...output.matchAll(/broken\/mistakes\.ts\((\d+),\d+\): error/g)].map((match) => Number(match[1])))];
    expect(reported.sort((a, b) => a - b), output).to.deep.equal(marked);
    expect(output).to.not.match(/test\/consumer\/src\//);
  });
});

describeEachDatabase('consumer types: the typed clients against a live server', (scratch) => {
  let server: TestServer;
  let member: string;
  let operator: string;

  before(async function () {
    this.timeout(120_000);
    const db = scratch().db;
    server = await startTestServer(scratch(), { variant: 'A' });
    await importSiteDocument(db, buildDemoDocument(server.siteA.origin, new Date()));
    const mia = await findUserByEmail(db, DEMO_LOGINS.member.email);
    if (!mia) throw new Error('the demo member is missing');
    member = await memberToken(db, server.siteA, mia);
    operator = (await issueToken(db, server.siteA, { scopes: ['school:read', 'school:write'] })).token;
  });
  after(() => server?.stop());

  it('the member app loads its course pages, next meeting and billing history through the generated documents', async () => {
    const pages = await loadCoursePages(server.siteA.origin, member);
    expect(pages).to.have.length.greaterThan(0);
    expect(pages.flatMap((page) => page.lectures)).to.have.length.greaterThan(0);
    for (const page of pages) expect(page.progress).to.match(/^\d+\/\d+$/);
    const next = await loadNextMeetingStart(server.siteA.origin, member, new Date());
    expect(next === null || new Date(next).getTime() > Date.now()).to.equal(true);
    const lines = await loadPaymentLines(server.siteA.origin, member);
    expect(lines).to.have.length.greaterThan(0);
    for (const line of lines) expect(line).to.match(/^\S+ (UNPAID|PAID|FAILED|EXPIRED|CANCELED) -?\d+ [A-Z]{3}$/);
  });

  it('the operator console renames the school with the typed admin client (read, then PATCH with If-Match)', async () => {
    const renamed = await renameSchool(server.siteA.origin, operator, 'Renamed by the console');
    expect(renamed.name).to.equal('Renamed by the console');
  });
});
