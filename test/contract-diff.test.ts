import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { DiffReport, JsonDiffReport } from '../src/contract/diff/report.js';
import { projectPath } from '../src/shared/paths.js';
import { changeById, ContractRepo } from './support/contract-repo.js';

/**
 * `npm run contract:diff` on a scratch git repository holding a copy of the contracts: each test
 * commits the real contracts, edits the working copy the way a pull request would and runs the command as a process.
 */

const MAIN = projectPath('src', 'contract', 'diff', 'main.ts');

describe('contract:diff', function () {
  // Each test runs the tool as a process, several times: generous, as the machine may be busy.
  this.timeout(300_000);
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
    // One row for the one edit of the shared parameter, naming every operation that takes it.
    expect(found.changes, JSON.stringify(found.changes, null, 2)).to.have.length(1);
    const required = change(found, 'openapi:add:/components/parameters/Limit/required');
    expect(required).to.include({ severity: 'breaking', where: 'Limit' });
    expect(required.message).to.include('The parameter `Limit` is now required.').and.include('`GET /oauth-applications`').and.include('`GET /courses`');
    expect(required.elements).to.deep.include({ api: 'admin', name: 'listOAuthApplications' });
    expect(required.elements).to.deep.include({ api: 'admin', name: 'listCourses' });
  });

  it('dropping a scope from the OAuth scheme and changing an operation scope are breaking, with the scopes named', () => {
    edit('openapi/admin.yaml', /\n {12}forms:read: Read access to forms/, '');
    edit('openapi/admin.yaml', /(operationId: getSchool[\s\S]*?oauth2: \[)'school:read'/, "$1'school:write'");
    const { status, report: found } = report('HEAD');
    expect(status).to.equal(1);
    const dropped = change(found, 'openapi:remove:/components/securitySchemes/oauth2/flows/authorizationCode/scopes/forms:read');
    expect(dropped.severity).to.equal('breaking');
    expect(dropped.message).to.include('forms:read');
    // The security requirement and the scope are named, not numbered.
    const scope = change(found, 'openapi:replace:/paths/~1school/get/security[oauth2]/oauth2[school:read]');
    expect(scope).to.include({ severity: 'breaking', where: 'GET /school' });
    expect(scope.message).to.include('`school:read`').and.include('`school:write`');
    expect(scope.elements).to.deep.equal([{ api: 'admin', name: 'getSchool' }]);
    expect(dropped.elements).to.deep.include({ api: 'admin', name: 'listForms' });
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

  it('removing one OpenAPI property is one row: the property, its required entry and every operation that returns it', () => {
    edit('openapi/admin.yaml', /\n {8}reviewed:\n {10}type: boolean\n {10}readOnly: true\n {10}description: Always[^\n]*/, '');
    edit('openapi/admin.yaml', /(\n {4}OAuthApplication:\n[\s\S]*?required: \[[^\]]*?), reviewed/, '$1');
    const { status, report: found } = report('HEAD');
    expect(status).to.equal(1);
    expect(found.changes.map((candidate) => candidate.id)).to.deep.equal(['openapi:remove:/components/schemas/OAuthApplication/properties/reviewed']);
    const [removed] = found.changes;
    expect(removed).to.include({ severity: 'breaking', where: 'OAuthApplication.reviewed' });
    expect(removed?.message).to.include('Removed required property `reviewed` of `OAuthApplication`.').and.include('`GET /oauth-applications`').and.include('`POST /oauth-applications/{clientId}/review`');
    expect(removed?.elements?.map((element) => element.name)).to.include.members(['listOAuthApplications', 'getOAuthApplication', 'reviewOAuthApplication']);
    expect(removed?.elements?.every((element) => element.api === 'admin')).to.equal(true);
  });

  it('ids name array members by value, so an unrelated addition does not change any existing row id', () => {
    const kinds = /(\n {4}OAuthApplicationKind:\n[\s\S]*?enum: \[)operator_created, /;
    edit('openapi/admin.yaml', kinds, '$1operator_created, school_managed, ');
    const alone = report('HEAD').report.changes.map((candidate) => candidate.id);
    expect(alone).to.include('openapi:add:/components/schemas/OAuthApplicationKind/enum[school_managed]');
    expect(alone.join(' ')).not.to.match(/\/\d+(\/|$)/);
    // An unrelated property first in the schema and a value before the new one shift every array position.
    edit('openapi/admin.yaml', /(\n {4}OAuthApplication:\n[\s\S]*?required: \[)/, '$1aaaFirst, ');
    edit('openapi/admin.yaml', /(\n {4}OAuthApplication:\n[\s\S]*?\n {6}properties:\n)/, '$1        aaaFirst:\n          type: string\n');
    edit('openapi/admin.yaml', kinds, '$1aaa_first, operator_created, ');
    const together = report('HEAD').report.changes.map((candidate) => candidate.id);
    expect(together).to.include.members(alone);
    expect(together).to.include('openapi:add:/components/schemas/OAuthApplication/properties/aaaFirst');
  });

  it('a GraphQL row names the usage coordinates it touches: a field, an argument, an enum value', () => {
    removeCourseSlug();
    edit('schema/viewer.graphql', /(\n {2}enrolledCourses\(\n[\s\S]*?)\n {4}"{3}\n {4}Opaque cursor from `pageInfo\.startCursor`[^\n]*\n {4}"{3}\n {4}before: String/, '$1');
    edit('schema/courses.graphql', /\n {2}"{3}\n {2}The viewer has not opened the lecture\.\n {2}"{3}\n {2}unread/, '');
    const { report: found } = report('HEAD');
    expect(change(found, 'graphql:FIELD_REMOVED:Course.slug').elements).to.deep.equal([{ api: 'graphql', name: 'Course.slug' }]);
    expect(change(found, 'graphql:FIELD_ARGUMENT_REMOVED:Viewer.enrolledCourses.before').elements).to.deep.equal([{ api: 'graphql', name: 'Viewer.enrolledCourses(before:)' }]);
    expect(change(found, 'graphql:ENUM_VALUE_REMOVED:LectureState.unread').elements).to.deep.equal([{ api: 'graphql', name: 'LectureState.unread' }]);
  });

  it('--format json gives the run and every change a verdict; --json is the same; an unknown format is a usage error', () => {
    removeCourseSlug();
    fs.writeFileSync(path.join(repo(), '.ci', 'contract-allowlist.yaml'), 'allow:\n  - change: graphql:FIELD_REMOVED:Course.slug\n    reason: no client reads it\n');
    edit('schema/courses.graphql', /(\n {2}title: String!\n)/, '$1  "Gone soon."\n  subtitle: String\n');
    const json = run('HEAD', '--format', 'json');
    expect(json.status).to.equal(0);
    const document = JSON.parse(json.stdout) as JsonDiffReport;
    expect(document.verdict).to.equal('pass');
    expect(change(document as unknown as DiffReport, 'graphql:FIELD_REMOVED:Course.slug')).to.include({ verdict: 'allowed', severity: 'breaking', where: 'Course.slug' });
    expect(document.changes.find((candidate) => candidate.id === 'graphql:FIELD_ADDED:Course.subtitle')?.verdict).to.equal('pass');
    expect(run('HEAD', '--json').stdout).to.equal(json.stdout);

    fs.writeFileSync(path.join(repo(), '.ci', 'contract-allowlist.yaml'), 'allow: []\n');
    const failing = JSON.parse(run('HEAD', '--format', 'json').stdout) as JsonDiffReport;
    expect(failing.verdict).to.equal('fail');
    expect(failing.changes.find((candidate) => candidate.id === 'graphql:FIELD_REMOVED:Course.slug')?.verdict).to.equal('fail');

    const unknown = run('HEAD', '--format', 'yaml');
    expect(unknown.status).to.equal(2);
    expect(unknown.stderr).to.include('--format yaml is not a format: markdown or json');
    expect(run('HEAD', '--format', 'markdown', '--json').status).to.equal(2);
  });

  it('prints a Markdown report for a pull-request comment', () => {
    removeCourseSlug();
    const result = run('HEAD');
    expect(result.status).to.equal(1);
    expect(result.stdout).to.match(/^## Contract diff: HEAD \([0-9a-f]{12}\) → working tree/);
    expect(result.stdout).to.include('**1 breaking change not on the allowlist.**');
    expect(result.stdout).to.include('#### Breaking (1)');
    expect(result.stdout).to.include('| `Course.slug` | **Fails.** ');
    expect(result.stdout).to.include('| API | Breaking | Allowed | Dangerous | Deprecated | Safe |\n| --- | ---: | ---: | ---: | ---: | ---: |\n| Member GraphQL API (schema/) | 1 | 0 | 0 | 0 | 0 |');
    expect(result.stdout).to.include('<details open><summary>Member GraphQL API (schema/): 1 change</summary>');
    expect(result.stdout).to.include('</details>');
    expect(run('HEAD', '--format', 'markdown').stdout).to.equal(result.stdout);
  });

  it('an unknown base revision is a usage error (exit 2)', () => {
    const result = run('no-such-ref');
    expect(result.status).to.equal(2);
    expect(result.stderr).to.include('no-such-ref is not a revision');
  });
});
