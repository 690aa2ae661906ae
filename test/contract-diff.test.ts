import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { DiffReport } from '../src/contract/diff/report.js';
import { projectPath } from '../src/shared/paths.js';
import { changeById, ContractRepo } from './support/contract-repo.js';

/**
 * `npm run contract:diff` on a scratch git repository holding a copy of the contracts: each test
 * commits the real contracts, edits the working copy the way a pull request would and runs the command as a process.
 */

const MAIN = projectPath('src', 'contract', 'diff', 'main.ts');

describe('contract:diff', function () {
  this.timeout(60_000);
  let scratch: ContractRepo;
  const repo = () => scratch.dir;
  const git = (...args: string[]) => scratch.git(...args);
  const run = (...args: string[]) => scratch.run(MAIN, args);
  const edit = (file: string, from: string | RegExp, to: string) => scratch.edit(file, from, to);
  const change = changeById;

  function report(...args: string[]): { status: number | null; report: DiffReport } {
    const result = run(...args, '--json');
    expect(result.stderr, result.stderr).to.equal('');
    return { status: result.status, report: JSON.parse(result.stdout) as DiffReport };
  }

  /** Course.slug with its description. */
  function removeCourseSlug(): void {
    edit('schema/courses.graphql', /\n {2}"{3}\n {2}URL slug of the course on this site[^\n]*\n {2}"{3}\n {2}slug: String!\n/, '\n');
  }

  beforeEach(() => {
    scratch = new ContractRepo('schoolgate-contract-diff-');
  });
  afterEach(() => scratch.remove());

  it('reports nothing and exits 0 when the contracts are unchanged (default base: the merge base with main)', () => {
    const { status, report: found } = report();
    expect(status).to.equal(0);
    expect(found.changes).to.deep.equal([]);
    expect(found.ok).to.equal(true);
  });

  it('removing a GraphQL field is breaking in both variants: exit 1', () => {
    removeCourseSlug();
    const { status, report: found } = report('HEAD');
    expect(status).to.equal(1);
    const removed = change(found, 'graphql:FIELD_REMOVED:Course.slug');
    expect(removed.severity).to.equal('breaking');
    expect(removed.variants).to.deep.equal(['A', 'B']);
    expect(found.ok).to.equal(false);
  });

  it('a field scope no longer granted by the old scope is breaking; adding an alternative scope is safe', () => {
    edit('schema/base.graphql', 'viewer: Viewer! @requiresScope(scopes: ["account:read"])', 'viewer: Viewer! @requiresScope(scopes: ["account:write"])');
    const narrowed = report('HEAD');
    expect(narrowed.status).to.equal(1);
    expect(change(narrowed.report, 'graphql:SCOPE_CHANGED:Query.viewer').severity).to.equal('breaking');
    edit('schema/base.graphql', '@requiresScope(scopes: ["account:write"])', '@requiresScope(scopes: ["account:read", "account:write"])');
    const widened = report('HEAD');
    expect(widened.status).to.equal(0);
    expect(change(widened.report, 'graphql:SCOPE_CHANGED:Query.viewer').severity).to.equal('safe');
  });

  it('a query parameter that became required is breaking', () => {
    edit('openapi/admin.yaml', /( {4}Limit:\n {6}name: limit\n {6}in: query\n {6}required: )false/, '$1true');
    const { status, report: found } = report('HEAD');
    expect(status).to.equal(1);
    const required = found.changes.filter((candidate) => candidate.severity === 'breaking' && candidate.where === 'GET /oauth-applications');
    expect(required, JSON.stringify(found.changes, null, 2)).to.have.length.greaterThan(0);
  });

  it('dropping a scope from the OAuth scheme and changing an operation scope are breaking, with the scopes named', () => {
    edit('openapi/admin.yaml', /\n {12}forms:read: Read access to forms/, '');
    edit('openapi/admin.yaml', /(operationId: getSchool[\s\S]*?oauth2: \[)'school:read'/, "$1'school:write'");
    const { status, report: found } = report('HEAD');
    expect(status).to.equal(1);
    const dropped = change(found, 'openapi:remove:/components/securitySchemes/oauth2/flows/authorizationCode/scopes/forms:read');
    expect(dropped.severity).to.equal('breaking');
    expect(dropped.message).to.include('forms:read');
    const scope = found.changes.find((candidate) => candidate.where === 'GET /school' && candidate.id.includes('/security/'));
    expect(scope?.severity).to.equal('breaking');
    expect(scope?.message).to.include('`school:read`').and.include('`school:write`');
  });

  it('removing an operation is breaking; a new GraphQL field is safe', () => {
    edit('openapi/admin.yaml', /\n {4}delete:\n {6}operationId: deleteOAuthApplication[\s\S]*?(?=\n {2}\/oauth-applications\/\{clientId\}\/rotate-secret:)/, '');
    const removed = report('HEAD');
    expect(removed.status).to.equal(1);
    expect(change(removed.report, 'openapi:remove:/paths/~1oauth-applications~1{clientId}/delete').severity).to.equal('breaking');

    git('checkout', '--', 'openapi');
    edit('schema/courses.graphql', /(\n {2}slug: String!\n)/, '$1  "A safe addition."\n  subtitle: String\n');
    const added = report('HEAD');
    expect(added.status).to.equal(0);
    expect(change(added.report, 'graphql:FIELD_ADDED:Course.subtitle').severity).to.equal('safe');
  });

  it('a breaking change on the allowlist with a reason passes and shows the reason; one without a reason is a usage error', () => {
    removeCourseSlug();
    fs.writeFileSync(path.join(repo(), '.ci', 'contract-allowlist.yaml'), 'allow:\n  - change: graphql:FIELD_REMOVED:Course.slug\n    reason: no client reads it\n  - change: graphql:FIELD_REMOVED:Course.gone\n    reason: landed long ago\n');
    const { status, report: found } = report('HEAD');
    expect(status).to.equal(0);
    expect(change(found, 'graphql:FIELD_REMOVED:Course.slug').allowedBecause).to.equal('no client reads it');
    expect(found.summary).to.include({ breaking: 1, allowed: 1 });
    expect(found.unusedAllowlistEntries).to.deep.equal(['graphql:FIELD_REMOVED:Course.gone']);

    fs.writeFileSync(path.join(repo(), '.ci', 'contract-allowlist.yaml'), 'allow:\n  - change: graphql:FIELD_REMOVED:Course.slug\n');
    const unreasoned = run('HEAD');
    expect(unreasoned.status).to.equal(2);
    expect(unreasoned.stderr).to.include('needs a `reason`');
  });

  it('prints a Markdown report for a pull-request comment', () => {
    removeCourseSlug();
    const result = run('HEAD');
    expect(result.status).to.equal(1);
    expect(result.stdout).to.match(/^## Contract diff: HEAD \([0-9a-f]{12}\) → working tree/);
    expect(result.stdout).to.include('**1 breaking change not on the allowlist.**');
    expect(result.stdout).to.include('#### Breaking (1)');
    expect(result.stdout).to.include('| `Course.slug` |');
  });

  it('an unknown base revision is a usage error (exit 2)', () => {
    const result = run('no-such-ref');
    expect(result.status).to.equal(2);
    expect(result.stderr).to.include('no-such-ref is not a revision');
  });
});
