import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { DiffReport } from '../src/contract/diff/report.js';
import { parseDeprecationReason } from '../src/deprecations/graphql-deprecations.js';
import { projectPath } from '../src/shared/paths.js';
import { changeById, ContractRepo } from './support/contract-repo.js';

/**
 * The deprecation policy (docs/versioning.md) on a scratch git repository holding a copy of the contracts: the lint
 * (`npm run lint:deprecations`), the diff's verdicts around a sunset date (the clock injected with `--today` or
 * CONTRACT_DIFF_TODAY) and the changelog written from the contracts. Each tool runs as a process, as npm runs it.
 */

const LINT = projectPath('src', 'contract', 'deprecations', 'main.ts');
const DIFF = projectPath('src', 'contract', 'diff', 'main.ts');
const CHANGELOG = projectPath('src', 'contract', 'changelog', 'main.ts');

const SUNSET = '2027-06-30';
const COMPLETE_GRAPHQL = `slug: String! @deprecated(reason: "Use \`Course.title\` instead. Sunset ${SUNSET}.")`;
const SINCE = '2026-12-01';
const COMPLETE_OPENAPI = `operationId: getMcpConnections\n      deprecated: true\n      x-deprecated-since: ${SINCE}\n      x-sunset: ${SUNSET}\n      x-replaced-by: getSchool\n`;

describe('contract deprecations: lint, diff policy, changelog', function () {
  this.timeout(60_000);
  let scratch: ContractRepo;
  const repo = () => scratch.dir;
  const git = (...args: string[]) => scratch.git(...args);
  const commit = (message: string) => scratch.commit(message);
  const edit = (file: string, from: string | RegExp, to: string) => scratch.edit(file, from, to);
  const change = changeById;
  // The real clock unless a test sets one.
  const run = (script: string, args: string[], env: NodeJS.ProcessEnv = {}) => scratch.run(script, args, { CONTRACT_DIFF_TODAY: '', ...env });

  function diffReport(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; report: DiffReport } {
    const result = run(DIFF, [...args, '--json'], env);
    expect(result.stderr, result.stderr).to.equal('');
    return { status: result.status, report: JSON.parse(result.stdout) as DiffReport };
  }

  function deprecateBoth(): void {
    edit('schema/courses.graphql', 'slug: String!', COMPLETE_GRAPHQL);
    edit('openapi/admin.yaml', 'operationId: getMcpConnections\n', COMPLETE_OPENAPI);
  }

  /** Course.slug with its description, and GET /school/mcp-connections. */
  function removeBoth(): void {
    edit('schema/courses.graphql', /\n {2}"{3}\n {2}URL slug of the course on this site[^\n]*\n {2}"{3}\n {2}slug: String![^\n]*\n/, '\n');
    edit('openapi/admin.yaml', /\n {4}get:\n {6}operationId: getMcpConnections[\s\S]*?(?=\n {4}patch:\n {6}operationId: updateMcpConnections)/, '');
  }

  beforeEach(() => {
    scratch = new ContractRepo('schoolgate-contract-deprecations-');
  });
  afterEach(() => scratch.remove());

  describe('the convention', () => {
    it('reads the replacement and the sunset from a GraphQL reason, with or without backticks', () => {
      expect(parseDeprecationReason('Use `Course.title` instead. Sunset 2027-06-30.')).to.deep.equal({ sunset: '2027-06-30', replacement: 'Course.title' });
      expect(parseDeprecationReason('Use Query.courses(after:) instead. Sunset 2027-01-31.')).to.deep.equal({ sunset: '2027-01-31', replacement: 'Query.courses(after:)' });
      expect(parseDeprecationReason('No longer supported')).to.deep.equal({ sunset: null, replacement: null });
      expect(parseDeprecationReason('Use Course.title instead. Sunset 2027-02-30.').sunset, 'not a calendar date').to.equal(null);
    });
  });

  describe('npm run lint:deprecations', () => {
    it('passes the contracts as they are', () => {
      const result = run(LINT, []);
      expect(result.status, result.stderr).to.equal(0);
    });

    it('refuses a deprecation without a sunset date or a replacement, in the SDL and in the admin API', () => {
      edit('schema/courses.graphql', 'slug: String!', 'slug: String! @deprecated(reason: "Going away.")');
      edit('openapi/admin.yaml', 'operationId: getMcpConnections\n', 'operationId: getMcpConnections\n      deprecated: true\n      x-sunset: 2027-13-01\n');
      const result = run(LINT, []);
      expect(result.status).to.equal(1);
      expect(result.stderr).to.include('GraphQL `Course.slug` (variant A) is deprecated without a valid sunset date');
      expect(result.stderr).to.include('GraphQL `Course.slug` (variant B) is deprecated without naming its replacement');
      expect(result.stderr).to.include('admin API `GET /school/mcp-connections` is deprecated without a valid `x-sunset` date');
      expect(result.stderr).to.include('admin API `GET /school/mcp-connections` is deprecated without `x-replaced-by`');
      expect(result.stderr).to.include('admin API `GET /school/mcp-connections` is deprecated without a valid `x-deprecated-since` date');
    });

    it('refuses an operation whose sunset is less than six months after its deprecation', () => {
      edit('openapi/admin.yaml', 'operationId: getMcpConnections\n', COMPLETE_OPENAPI.replace(`x-sunset: ${SUNSET}`, 'x-sunset: 2027-05-31'));
      const result = run(LINT, []);
      expect(result.status).to.equal(1);
      expect(result.stderr).to.include(`admin API \`GET /school/mcp-connections\` has \`x-sunset: 2027-05-31\`, less than 6 months after \`x-deprecated-since: ${SINCE}\``);
    });

    it('refuses a replacement that does not exist', () => {
      edit('schema/courses.graphql', 'slug: String!', `slug: String! @deprecated(reason: "Use Course.handle instead. Sunset ${SUNSET}.")`);
      edit('openapi/admin.yaml', 'operationId: getMcpConnections\n', `operationId: getMcpConnections\n      deprecated: true\n      x-sunset: ${SUNSET}\n      x-replaced-by: getNothing\n`);
      const result = run(LINT, []);
      expect(result.status).to.equal(1);
      expect(result.stderr).to.include('names the replacement `Course.handle`, which variant B does not have');
      expect(result.stderr).to.include('`x-replaced-by: getNothing`, which is not an operationId');
    });

    it('accepts a complete deprecation and lists it', () => {
      deprecateBoth();
      const result = run(LINT, []);
      expect(result.status, result.stderr).to.equal(0);
      expect(result.stdout).to.include('2 deprecations').and.include(`Course.slug: sunset ${SUNSET}, use Course.title`).and.include(`GET /school/mcp-connections: sunset ${SUNSET}, use getSchool`);
    });
  });

  describe('npm run contract:diff', () => {
    it('reports deprecating as a change of its own, with the date and the replacement', () => {
      deprecateBoth();
      const { status, report } = diffReport(['HEAD', '--today', '2026-11-24']);
      expect(status).to.equal(0);
      const field = change(report, 'graphql:DEPRECATED:Course.slug');
      expect(field).to.include({ severity: 'deprecated', sunset: SUNSET, replacement: 'Course.title' });
      expect(field.variants).to.deep.equal(['A', 'B']);
      expect(field.message).to.include(SUNSET);
      expect(change(report, 'openapi:deprecated:/paths/~1school~1mcp-connections/get')).to.include({ severity: 'deprecated', sunset: SUNSET, replacement: 'getSchool', where: 'GET /school/mcp-connections' });
      // No generic directive or annotation changes next to it.
      expect(report.changes.map((found) => found.id)).to.have.length(2);
      expect(report.summary.deprecated).to.equal(2);
      const markdown = run(DIFF, ['HEAD', '--today', '2026-11-24']);
      expect(markdown.stdout).to.include('#### Deprecated (1)');
    });

    it('rates a sunset under six months away as dangerous', () => {
      deprecateBoth();
      const { report } = diffReport(['HEAD', '--today', '2027-03-01']);
      expect(change(report, 'graphql:DEPRECATED:Course.slug').severity).to.equal('dangerous');
      expect(change(report, 'graphql:DEPRECATED:Course.slug').message).to.include("less than the 6 months' notice");
    });

    it('removing a deprecated element is breaking before its sunset date and allowed from it on', () => {
      deprecateBoth();
      commit('deprecate');
      removeBoth();
      const before = diffReport(['HEAD', '--today', '2027-06-29']);
      expect(before.status).to.equal(1);
      for (const id of ['graphql:FIELD_REMOVED:Course.slug', 'openapi:remove:/paths/~1school~1mcp-connections/get']) {
        const removed = change(before.report, id);
        expect(removed.severity).to.equal('breaking');
        expect(removed.allowedBecause).to.equal(undefined);
        expect(removed.message).to.include(`its sunset (${SUNSET}) is still to come`);
      }

      const after = diffReport(['HEAD'], { CONTRACT_DIFF_TODAY: SUNSET });
      expect(after.status).to.equal(0);
      for (const id of ['graphql:FIELD_REMOVED:Course.slug', 'openapi:remove:/paths/~1school~1mcp-connections/get']) {
        expect(change(after.report, id).allowedBecause).to.include(`sunset ${SUNSET}`);
      }
      expect(after.report.summary).to.include({ breaking: 2, allowed: 2 });
    });

    it('removing an element that was not deprecated stays breaking whatever the date', () => {
      removeBoth();
      const { status, report } = diffReport(['HEAD', '--today', '2099-01-01']);
      expect(status).to.equal(1);
      expect(change(report, 'graphql:FIELD_REMOVED:Course.slug').allowedBecause).to.equal(undefined);
      expect(change(report, 'openapi:remove:/paths/~1school~1mcp-connections/get').allowedBecause).to.equal(undefined);
    });

    it('a malformed --today is a usage error', () => {
      const result = run(DIFF, ['HEAD', '--today', 'tomorrow']);
      expect(result.status).to.equal(2);
      expect(result.stderr).to.include('tomorrow is not a date');
    });
  });

  describe('npm run changelog', () => {
    const BASELINE = '# Changelog\n\nIntroduction.\n\n## 0.1.0 — 2026-11-24\n\nFirst release.\n';

    function prepareRelease(): void {
      git('tag', 'v0.1.0');
      fs.writeFileSync(path.join(repo(), 'CHANGELOG.md'), BASELINE);
      fs.writeFileSync(path.join(repo(), 'package.json'), '{ "name": "scratch", "version": "0.2.0" }\n');
      edit('schema/courses.graphql', /(\n {2}slug: String!\n)/, '$1  "The course subtitle."\n  subtitle: String\n');
      edit('schema/courses.graphql', 'slug: String!', COMPLETE_GRAPHQL);
      edit('openapi/admin.yaml', /\n {4}delete:\n {6}operationId: deleteOAuthApplication[\s\S]*?(?=\n {2}\/oauth-applications\/\{clientId\}\/rotate-secret:)/, '');
      edit('schema/base.graphql', 'viewer: Viewer! @requiresScope(scopes: ["account:read"])', 'viewer: Viewer! @requiresScope(scopes: ["account:read", "account:write"])');
    }

    it('writes a section with the additions, deprecations, removals and scope changes, above the earlier ones', () => {
      prepareRelease();
      const result = run(CHANGELOG, ['v0.1.0', '--today', '2026-12-01']);
      expect(result.status, result.stderr).to.equal(0);
      const text = fs.readFileSync(path.join(repo(), 'CHANGELOG.md'), 'utf8');
      expect(text).to.match(/^# Changelog\n\nIntroduction\.\n\n<!-- changelog-range: v0\.1\.0\.\.working tree -->\n## 0\.2\.0 — 2026-12-01\n/);
      expect(text).to.include('Contract changes from `v0.1.0` to the working tree.');
      const graphql = text.slice(text.indexOf('### Member GraphQL API'), text.indexOf('### Admin REST API'));
      expect(graphql).to.include("#### Added\n\n- `Course.subtitle`: Field 'subtitle' was added to object type 'Course'");
      expect(graphql).to.include(`#### Deprecated\n\n- \`Course.slug\`: use \`Course.title\` instead; sunset ${SUNSET}.`);
      expect(graphql).to.include('#### Scopes changed\n\n- `Query.viewer`: The scope `Query.viewer` needs changed from `account:read` to `account:read` or `account:write`.');
      const admin = text.slice(text.indexOf('### Admin REST API'), text.indexOf('## 0.1.0'));
      expect(admin).to.include('#### Removed\n\n- **Breaking:** `DELETE /oauth-applications/{clientId}`: The operation `deleteOAuthApplication` was removed.');
      expect(graphql.indexOf('#### Added')).to.be.below(graphql.indexOf('#### Deprecated'));
      expect(graphql.indexOf('#### Deprecated')).to.be.below(graphql.indexOf('#### Scopes changed'));
      expect(text.endsWith('## 0.1.0 — 2026-11-24\n\nFirst release.\n')).to.equal(true);
    });

    it('re-running for the same range replaces its section instead of adding another', () => {
      prepareRelease();
      expect(run(CHANGELOG, ['v0.1.0', '--today', '2026-12-01']).status).to.equal(0);
      const first = fs.readFileSync(path.join(repo(), 'CHANGELOG.md'), 'utf8');
      const again = run(CHANGELOG, ['v0.1.0', '--today', '2026-12-01']);
      expect(again.stdout).to.include('replaced the section for v0.1.0..working tree');
      expect(fs.readFileSync(path.join(repo(), 'CHANGELOG.md'), 'utf8')).to.equal(first);

      edit('schema/courses.graphql', 'subtitle: String', 'subtitle: String\n  "Another."\n  tagline: String');
      expect(run(CHANGELOG, ['v0.1.0', '--today', '2026-12-02']).status).to.equal(0);
      const updated = fs.readFileSync(path.join(repo(), 'CHANGELOG.md'), 'utf8');
      expect(updated.match(/changelog-range: v0\.1\.0\.\.working tree/g)).to.have.length(1);
      expect(updated).to.include('## 0.2.0 — 2026-12-02').and.include('`Course.tagline`').and.not.include('2026-12-01');
      expect(updated.endsWith('## 0.1.0 — 2026-11-24\n\nFirst release.\n')).to.equal(true);
    });

    it('names the range when there is no package.json, and says when nothing changed', () => {
      git('tag', 'v0.1.0');
      const result = run(CHANGELOG, ['v0.1.0', 'HEAD', '--today', '2026-12-01', '--stdout']);
      expect(result.status, result.stderr).to.equal(0);
      expect(result.stdout).to.include('## v0.1.0 → HEAD — 2026-12-01').and.include('No changes to the member API, the admin API or the MCP tools contracts.');
      expect(fs.existsSync(path.join(repo(), 'CHANGELOG.md'))).to.equal(false);
    });
  });
});
