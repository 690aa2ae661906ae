import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { ContractChange } from '../src/contract/diff/changes.js';
import type { DiffReport } from '../src/contract/diff/report.js';
import { insertTrustedDocuments } from '../src/data/trusted-documents.js';
import { projectPath } from '../src/shared/paths.js';
import { USAGE_EXPORT_FORMAT, type ClientDocuments, type ElementUse, type UsageExport } from '../src/usage/export-format.js';
import { elementBundle, flushUses, recordUse } from '../src/usage/tally.js';
import { useAdminApi } from './support/admin-fixture.js';
import { changeById, ContractRepo, type ToolRun } from './support/contract-repo.js';
import { describeEachDatabase } from './support/databases.js';
import { makeClient } from './support/oauth-fixtures.js';
import { runCli } from './support/processes.js';

/**
 * `npm run contract:diff -- --usage FILE|URL [--days N] [--site ORIGIN]`: breaking changes judged by who still uses
 * them, trusted documents a change invalidates, and every bad export refused with exit 2 before anything is compared.
 * Scratch git repositories hold a copy of the contracts (test/support/contract-repo.ts); the URL form reads a real
 * server's admin API (GET /usage/export) with an operator token.
 */

const MAIN = projectPath('src', 'contract', 'diff', 'main.ts');
const TSX = projectPath('node_modules', '.bin', 'tsx');
const SITE = 'https://school.example';
const SYLLABUS = fs
  .readFileSync(projectPath('schema', 'operations', 'syllabus.graphql'), 'utf8')
  .split('\n')
  .filter((line) => !line.startsWith('#'))
  .join('\n');

interface Judged extends ContractChange {
  verdict?: string;
}

function documentId(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

function use(clientId: string | null, uses: number, lastUsedAt: string, clientName: string | null = clientId === null ? null : `App ${clientId}`): ElementUse['clients'][number] {
  return { clientId, clientName, uses, lastUsedAt };
}

/** A usage export of SITE (variant B) for the 30 days to 2026-11-25, with the given elements and documents. */
function usageExport(parts: { usage?: ElementUse[]; trustedDocuments?: ClientDocuments[] } & Partial<Omit<UsageExport, 'usage' | 'trustedDocuments'>> = {}): UsageExport {
  return { format: USAGE_EXPORT_FORMAT, site: SITE, variant: 'B', generatedAt: '2026-11-25T23:00:00.000Z', from: '2026-10-27', to: '2026-11-25', days: 30, usage: [], trustedDocuments: [], ...parts };
}

const SLUG_USED: ElementUse = { api: 'graphql', element: 'Course.slug', clients: [use('member-app', 42, '2026-11-20T10:00:00.000Z'), use('quiz-app', 3, '2026-11-02T08:00:00.000Z')] };

/** Course.slug with its description (both variants). */
const COURSE_SLUG = /\n {2}"{3}\n {2}URL slug of the course on this site[^\n]*\n {2}"{3}\n {2}slug: String![^\n]*\n/;

describe('contract:diff --usage (a file)', function () {
  this.timeout(120_000);
  let scratch: ContractRepo;

  beforeEach(() => {
    scratch = new ContractRepo('schoolgate-diff-usage-');
  });
  afterEach(() => scratch.remove());

  function writeExport(value: unknown, name = 'usage.json'): string {
    const file = path.join(scratch.dir, name);
    fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  }

  function diff(args: string[]): { run: ToolRun; report: DiffReport } {
    const run = scratch.run(MAIN, ['main', '--format', 'json', ...args]);
    expect(run.stderr, run.stderr).to.equal('');
    return { run, report: JSON.parse(run.stdout) as DiffReport };
  }

  function removeCourseSlug(): void {
    scratch.edit('schema/courses.graphql', COURSE_SLUG, '\n');
  }

  describe('verdicts', () => {
    it('a breaking change whose element a client used in the judged days fails, naming the clients, their uses and last use', () => {
      removeCourseSlug();
      const { run, report } = diff(['--usage', writeExport(usageExport({ usage: [SLUG_USED] }))]);
      expect(run.status).to.equal(1);
      const removed = changeById(report, 'graphql:FIELD_REMOVED:Course.slug') as Judged;
      expect(removed.allowedBecause).to.equal(undefined);
      expect(removed.verdict).to.equal('fail');
      expect(removed.usage?.verdict).to.equal('used');
      expect(removed.usage?.site).to.equal(SITE);
      expect(removed.usage?.clients.map((client) => [client.clientId, client.uses, client.lastUsedAt])).to.deep.equal([
        ['member-app', 42, '2026-11-20T10:00:00.000Z'],
        ['quiz-app', 3, '2026-11-02T08:00:00.000Z'],
      ]);
      expect(report.usage).to.include({ site: SITE, variant: 'B', days: 30, usedBreaking: 1, unusedBreaking: 0, invalidatedDocuments: 0 });

      const markdown = scratch.run(MAIN, ['main', '--usage', writeExport(usageExport({ usage: [SLUG_USED] }))]);
      expect(markdown.status).to.equal(1);
      expect(markdown.stdout).to.include('Judged by the usage of https://school.example (variant B) in the 30 days to 2026-11-25');
      expect(markdown.stdout).to.include('**Breaking and used by** App member-app (`member-app`): 42 uses, last 2026-11-20; App quiz-app (`quiz-app`): 3 uses, last 2026-11-02');
    });

    it('the Markdown row names the ten clients with most uses and counts the others; the JSON lists them all', () => {
      removeCourseSlug();
      const clients = Array.from({ length: 12 }, (_, index) => use(`app-${String(index).padStart(2, '0')}`, 100 - index, '2026-11-20T10:00:00.000Z'));
      const file = writeExport(usageExport({ usage: [{ api: 'graphql', element: 'Course.slug', clients }] }));
      const markdown = scratch.run(MAIN, ['main', '--usage', file]);
      expect(markdown.stdout).to.include('App app-09 (`app-09`): 91 uses, last 2026-11-20; and 2 more clients');
      expect(markdown.stdout).not.to.include('`app-10`');
      expect(changeById(diff(['--usage', file]).report, 'graphql:FIELD_REMOVED:Course.slug').usage?.clients).to.have.length(12);
    });

    it('a breaking change nobody used in the judged days is allowed with a note: exit 0', () => {
      removeCourseSlug();
      const otherField: ElementUse = { api: 'graphql', element: 'Course.title', clients: [use('member-app', 42, '2026-11-20T10:00:00.000Z')] };
      const { run, report } = diff(['--usage', writeExport(usageExport({ usage: [otherField] }))]);
      expect(run.status).to.equal(0);
      const removed = changeById(report, 'graphql:FIELD_REMOVED:Course.slug') as Judged;
      expect(removed.usage).to.deep.include({ verdict: 'unused', days: 30, clients: [] });
      expect(removed.allowedBecause).to.equal('unused for 30 days on https://school.example (to 2026-11-25)');
      expect(removed.verdict).to.equal('allowed');
      expect(report.ok).to.equal(true);
      const markdown = scratch.run(MAIN, ['main', '--usage', writeExport(usageExport({ usage: [otherField] }))]);
      expect(markdown.stdout).to.include('**Unused** for 30 days on https://school.example.');
    });

    it('--days judges only the last N days of the export: a client last seen before them does not count', () => {
      removeCourseSlug();
      const file = writeExport(usageExport({ usage: [{ api: 'graphql', element: 'Course.slug', clients: [use('member-app', 9, '2026-11-10T12:00:00.000Z')] }] }));
      expect(diff(['--usage', file, '--days', '30']).run.status).to.equal(1);
      expect(diff(['--usage', file, '--days', '16']).run.status).to.equal(1, '2026-11-10 is the first of the 16 days to 2026-11-25');
      const narrow = diff(['--usage', file, '--days', '15']);
      expect(narrow.run.status).to.equal(0);
      expect((changeById(narrow.report, 'graphql:FIELD_REMOVED:Course.slug') as Judged).allowedBecause).to.match(/^unused for 15 days/);
      expect(narrow.report.usage).to.include({ days: 15, exportDays: 30 });
    });

    it('a field’s arguments count for the field, a type’s fields for the type', () => {
      removeCourseSlug();
      const argumentOnly: ElementUse = { api: 'graphql', element: 'Course.slugs(first:)', clients: [use('member-app', 1, '2026-11-20T10:00:00.000Z')] };
      // `Course.slugs(first:)` is another field's argument: it must not count for Course.slug.
      expect(diff(['--usage', writeExport(usageExport({ usage: [argumentOnly] }))]).run.status).to.equal(0);
      const ofTheField: ElementUse = { api: 'graphql', element: 'Course.slug(format:)', clients: [use('member-app', 1, '2026-11-20T10:00:00.000Z')] };
      expect(diff(['--usage', writeExport(usageExport({ usage: [ofTheField] }))]).run.status).to.equal(1);
    });

    it('removing an admin operation a client calls fails; an MCP-only or anonymous use of something else does not count', () => {
      scratch.edit('openapi/admin.yaml', /\n {4}get:\n {6}operationId: getMcpConnections[\s\S]*?(?=\n {4}patch:\n {6}operationId: updateMcpConnections)/, '');
      const used: ElementUse[] = [
        { api: 'admin', element: 'getMcpConnections', clients: [use('console', 7, '2026-11-24T09:00:00.000Z', 'Operator console')] },
        { api: 'mcp', element: 'getMcpConnections', clients: [use(null, 99, '2026-11-24T09:00:00.000Z')] },
      ];
      const { run, report } = diff(['--usage', writeExport(usageExport({ usage: used }))]);
      expect(run.status).to.equal(1);
      const removed = report.changes.find((change) => change.api === 'openapi' && change.severity === 'breaking' && change.elements?.some((element) => element.name === 'getMcpConnections'));
      expect(removed, JSON.stringify(report.changes.map((change) => change.id))).to.not.equal(undefined);
      expect(removed?.usage?.clients.map((client) => [client.clientId, client.clientName, client.uses])).to.deep.equal([['console', 'Operator console', 7]]);
      const unused = diff(['--usage', writeExport(usageExport({ usage: used.slice(1) }))]);
      expect(unused.run.status).to.equal(0);
    });

    it('a used element past its sunset still fails (the traffic outweighs the calendar); an allowlist entry accepts it explicitly', () => {
      scratch.edit('schema/courses.graphql', 'slug: String!', 'slug: String! @deprecated(reason: "Use `Course.title` instead. Sunset 2027-06-30.")');
      scratch.commit('deprecate Course.slug');
      removeCourseSlug();
      const file = writeExport(usageExport({ usage: [SLUG_USED] }));
      const { run, report } = diff(['--usage', file, '--today', '2027-07-01']);
      expect(run.status).to.equal(1);
      const removed = changeById(report, 'graphql:FIELD_REMOVED:Course.slug');
      expect(removed.allowedBecause).to.equal(undefined);
      expect(removed.usage?.verdict).to.equal('used');
      expect(removed.usage?.overruled).to.match(/sunset 2027-06-30, which has come/);
      // Without usage the sunset alone allows it, as before.
      expect(scratch.run(MAIN, ['main', '--today', '2027-07-01']).status).to.equal(0);

      fs.writeFileSync(path.join(scratch.dir, '.ci', 'contract-allowlist.yaml'), 'allow:\n  - change: graphql:FIELD_REMOVED:Course.slug\n    reason: the two apps moved to Course.title in their next release, agreed with their owners\n');
      const allowed = diff(['--usage', file, '--today', '2027-07-01']);
      expect(allowed.run.status).to.equal(0);
      const accepted = changeById(allowed.report, 'graphql:FIELD_REMOVED:Course.slug');
      expect(accepted.allowedBecause).to.match(/^the two apps moved/);
      expect(accepted.usage?.verdict).to.equal('used');
    });

    it('a deprecation lists who still uses the element', () => {
      scratch.edit('schema/courses.graphql', 'slug: String!', 'slug: String! @deprecated(reason: "Use `Course.title` instead. Sunset 2027-06-30.")');
      const { run, report } = diff(['--usage', writeExport(usageExport({ usage: [SLUG_USED] })), '--today', '2026-11-25']);
      expect(run.status).to.equal(0);
      const deprecated = changeById(report, 'graphql:DEPRECATED:Course.slug');
      expect(deprecated.severity).to.equal('deprecated');
      expect(deprecated.usage?.verdict).to.equal('used');
      expect(deprecated.usage?.clients.map((client) => client.clientId)).to.deep.equal(['member-app', 'quiz-app']);
      const markdown = scratch.run(MAIN, ['main', '--usage', writeExport(usageExport({ usage: [SLUG_USED] })), '--today', '2026-11-25']);
      expect(markdown.stdout).to.include('**Still used by** App member-app (`member-app`): 42 uses');
    });

    it('a change only in variant A is not judged by a variant B site', () => {
      scratch.edit('schema/variant-a/payments.graphql', /\n {2}"{3}[^"]*"{3}\n {2}refundingState: RefundingState!\n/, '\n');
      const onA = diff(['--usage', writeExport(usageExport({ variant: 'A' }))]);
      expect(onA.run.status).to.equal(0);
      expect(changeById(onA.report, 'graphql:FIELD_REMOVED:Payment.refundingState').usage?.verdict).to.equal('unused');
      const onB = diff(['--usage', writeExport(usageExport({ variant: 'B' }))]);
      expect(onB.run.status).to.equal(1);
      const removed = changeById(onB.report, 'graphql:FIELD_REMOVED:Payment.refundingState');
      expect(removed.usage).to.equal(undefined);
      expect(removed.allowedBecause).to.equal(undefined);
    });
  });

  describe('trusted documents', () => {
    const syllabus: ClientDocuments = {
      clientId: 'member-app',
      clientName: 'Member App',
      kind: 'operator_created',
      documents: [{ id: documentId(SYLLABUS), operationNames: ['MemberSyllabus'], document: SYLLABUS, publishedAt: '2026-10-01T12:00:00.000Z' }],
    };

    it('a change that invalidates a published document fails, naming the client, the operation and the validation error', () => {
      removeCourseSlug();
      // Nobody sent Course.slug in the window, so the removal alone would be allowed: the document still fails it.
      const { run, report } = diff(['--usage', writeExport(usageExport({ trustedDocuments: [syllabus] }))]);
      expect(run.status).to.equal(1);
      const id = `graphql:TRUSTED_DOCUMENT_INVALIDATED:member-app:${documentId(SYLLABUS)}`;
      const broken = changeById(report, id) as Judged;
      expect(broken.severity).to.equal('breaking');
      expect(broken.verdict).to.equal('fail');
      expect(broken.variants).to.deep.equal(['B']);
      expect(broken.message).to.include('`MemberSyllabus`').and.include('Member App (`member-app`)').and.include('Cannot query field "slug" on type "Course"');
      expect(broken.trustedDocument).to.deep.include({ clientId: 'member-app', operationNames: ['MemberSyllabus'], documentId: documentId(SYLLABUS) });
      expect(changeById(report, 'graphql:FIELD_REMOVED:Course.slug').allowedBecause).to.match(/^unused/);
      expect(report.usage?.invalidatedDocuments).to.equal(1);

      fs.writeFileSync(path.join(scratch.dir, '.ci', 'contract-allowlist.yaml'), `allow:\n  - change: ${id}\n    reason: Member App ships its next release without the slug first\n`);
      expect(diff(['--usage', writeExport(usageExport({ trustedDocuments: [syllabus] }))]).run.status).to.equal(0);
    });

    it('a change the documents do not touch, or a document already invalid on the base, adds no row', () => {
      scratch.edit('schema/variant-a/payments.graphql', /\n {2}"{3}[^"]*"{3}\n {2}refundingState: RefundingState!\n/, '\n');
      const stale = 'query Stale { viewer { noSuchField } }';
      const documents: ClientDocuments = { ...syllabus, documents: [...syllabus.documents, { id: documentId(stale), operationNames: ['Stale'], document: stale, publishedAt: '2026-10-01T12:00:00.000Z' }] };
      // Variant A: the site that serves payments, where nobody used refundingState.
      const { run, report } = diff(['--usage', writeExport(usageExport({ variant: 'A', trustedDocuments: [documents] }))]);
      expect(run.status).to.equal(0);
      expect(report.changes.filter((change) => change.id.includes('TRUSTED_DOCUMENT'))).to.deep.equal([]);
    });
  });

  describe('bad input: exit 2, a clear message, no report', () => {
    function refused(args: string[], message: RegExp): void {
      const run = scratch.run(MAIN, ['main', ...args]);
      expect(run.status, run.stderr).to.equal(2);
      expect(run.stdout).to.equal('');
      expect(run.stderr).to.match(message);
    }

    beforeEach(() => removeCourseSlug());

    it('an export that is not JSON, not a usage export, or malformed', () => {
      refused(['--usage', writeExport('{"format": ')], /usage\.json is not JSON .*expected a usage export/);
      refused(['--usage', writeExport({ format: 'schoolgate-usage-export/9' })], /is not a usage export: `format` is "schoolgate-usage-export\/9", expected "schoolgate-usage-export\/1"/);
      refused(['--usage', writeExport([1, 2])], /the document must be a JSON object, not a list/);
      refused(['--usage', writeExport({ ...usageExport(), variant: 'C' })], /variant must be "A" or "B", not "C"/);
      refused(['--usage', writeExport({ ...usageExport(), days: 7 })], /from 2026-10-27 to 2026-11-25 is not 7 days/);
      refused(['--usage', writeExport({ ...usageExport(), to: '2026-11-31' })], /to must be a date/);
      refused(['--usage', writeExport(usageExport({ usage: [{ api: 'graphql', element: 'Course.slug', clients: [use('a', 0, '2026-11-20T10:00:00.000Z')] }] }))], /usage\[0\]\.clients\[0\]\.uses must be a positive whole number, not number/);
      refused(['--usage', writeExport(usageExport({ usage: [{ api: 'soap', element: 'x', clients: [] } as unknown as ElementUse] }))], /usage\[0\]\.api must be "graphql", "admin", "mcp", not "soap"/);
      const tampered = { clientId: 'member-app', clientName: 'Member App', kind: 'operator_created', documents: [{ id: documentId('query A { viewer { id } }'), operationNames: ['A'], document: 'query B { viewer { id } }', publishedAt: '2026-10-01T12:00:00.000Z' }] };
      refused(['--usage', writeExport(usageExport({ trustedDocuments: [tampered] }))], /trustedDocuments\[0\]\.documents\[0\]\.id is not the sha256 of its document/);
      refused(['--usage', path.join(scratch.dir, 'missing.json')], /--usage .*missing\.json: ENOENT/);
    });

    it('an export of another site than --site, naming both', () => {
      refused(['--usage', writeExport(usageExport()), '--site', 'https://other.example'], /is the usage of https:\/\/school\.example, not of https:\/\/other\.example/);
      refused(['--usage', writeExport(usageExport()), '--site', 'not a site'], /--site not a site is not a site origin/);
      // The same origin written differently is the same site.
      expect(scratch.run(MAIN, ['main', '--usage', writeExport(usageExport({ usage: [SLUG_USED] })), '--site', 'https://School.example/']).status).to.equal(1);
    });

    it('--days beyond the export, or not a number of days; --days or --site without --usage', () => {
      refused(['--usage', writeExport(usageExport({ from: '2026-11-19', days: 7 }))], /--days 30 is more than .*usage\.json covers: 7 days \(2026-11-19 to 2026-11-25\); pass --days 7 or less/);
      refused(['--usage', writeExport(usageExport()), '--days', '0'], /--days 0 is not a whole number of days from 1 to 3650/);
      refused(['--usage', writeExport(usageExport()), '--days', 'week'], /--days week is not a whole number/);
      refused(['--days', '7'], /--days and --site go with --usage FILE\|URL/);
    });
  });
});

/** Runs contract:diff without blocking this process, which serves the admin API the command calls. */
function runAsync(repo: ContractRepo, args: string[], env: NodeJS.ProcessEnv): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [MAIN, '--repo', repo.dir, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** A port nothing listens on: one the system handed out and took back. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describeEachDatabase('contract:diff --usage (an instance’s admin API, and the CLI’s export)', (scratch) => {
  const admin = useAdminApi(scratch, { siteB: false, scopes: ['school:read'] });
  let repo: ContractRepo;

  before(async function () {
    this.timeout(60_000);
    const { db, server } = admin;
    const app = await makeClient(db, server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'], name: 'Study Buddy' });
    recordUse(db, server.siteA.id, app.client.ref, elementBundle('graphql', 'Course.slug'));
    recordUse(db, server.siteA.id, app.client.ref, elementBundle('graphql', 'Course.slug'));
    await flushUses(db);
    await insertTrustedDocuments(db, server.siteA.id, app.client.ref, [{ documentId: documentId(SYLLABUS), document: SYLLABUS, operationNames: ['MemberSyllabus'] }], new Date());
    repo = new ContractRepo('schoolgate-diff-usage-url-');
    repo.edit('schema/courses.graphql', COURSE_SLUG, '\n');
  });
  after(() => repo.remove());

  const token = () => ({ SCHOOLGATE_OPERATOR_TOKEN: admin.api.token ?? '' });

  it('reads the export from the site origin with the operator token: the used field and the invalidated document fail the run', async function () {
    this.timeout(120_000);
    const run = await runAsync(repo, ['main', '--format', 'json', '--usage', admin.origin, '--days', '7'], token());
    expect(run.stderr).to.equal('');
    expect(run.status).to.equal(1);
    const report = JSON.parse(run.stdout) as DiffReport;
    const removed = changeById(report, 'graphql:FIELD_REMOVED:Course.slug');
    expect(removed.usage?.verdict).to.equal('used');
    expect(removed.usage?.clients).to.have.length(1);
    expect(removed.usage?.clients[0]).to.include({ clientName: 'Study Buddy', uses: 2 });
    const broken = report.changes.find((change) => change.trustedDocument !== undefined);
    expect(broken?.trustedDocument).to.include({ clientName: 'Study Buddy', documentId: documentId(SYLLABUS) });
    expect(report.usage).to.include({ site: admin.origin, days: 7, exportDays: 7 });
  });

  it('reads the file `npx schoolgate usage export` writes', async function () {
    this.timeout(120_000);
    const file = path.join(repo.dir, 'exported.json');
    const exported = await runCli(['usage', 'export', '--site', admin.origin, '--days', '7', '--output', file], { DATABASE_URL: scratch().url, SCHOOLGATE_VARIANT: 'A' });
    expect(exported.code, exported.stderr).to.equal(0);
    const run = await runAsync(repo, ['main', '--format', 'json', '--usage', file, '--days', '7', '--site', admin.origin], {});
    expect(run.stderr).to.equal('');
    expect(run.status).to.equal(1);
    const report = JSON.parse(run.stdout) as DiffReport;
    expect(changeById(report, 'graphql:FIELD_REMOVED:Course.slug').usage?.clients[0]).to.include({ clientName: 'Study Buddy', uses: 2 });
    expect(report.usage).to.include({ variant: 'A', invalidatedDocuments: 1 });
  });

  it('takes the full …/api/admin/v1/usage/export URL too', async function () {
    this.timeout(120_000);
    const run = await runAsync(repo, ['main', '--format', 'json', '--usage', `${admin.origin}/api/admin/v1/usage/export`, '--days', '3'], token());
    expect(run.stderr).to.equal('');
    expect((JSON.parse(run.stdout) as DiffReport).usage).to.include({ days: 3 });
  });

  it('a refused token, no token, another site, an unreachable instance or a wrong path: exit 2, naming the problem', async function () {
    this.timeout(180_000);
    const expectRefused = async (args: string[], env: NodeJS.ProcessEnv, message: RegExp) => {
      const run = await runAsync(repo, ['main', ...args], env);
      expect(run.status, run.stderr).to.equal(2);
      expect(run.stdout).to.equal('');
      expect(run.stderr).to.match(message);
    };
    await expectRefused(['--usage', admin.origin], { SCHOOLGATE_OPERATOR_TOKEN: 'not-a-token' }, /refused the operator token in SCHOOLGATE_OPERATOR_TOKEN \(401\)/);
    await expectRefused(['--usage', admin.origin], { SCHOOLGATE_OPERATOR_TOKEN: '' }, /needs an operator token with the scope school:read in SCHOOLGATE_OPERATOR_TOKEN/);
    await expectRefused(['--usage', admin.origin, '--site', 'https://other.example'], token(), /is the usage of http:\/\/localhost:\d+, not of https:\/\/other\.example/);
    await expectRefused(['--usage', `http://127.0.0.1:${await closedPort()}`], token(), /could not reach http:\/\/127\.0\.0\.1:\d+ for its usage/);
    await expectRefused(['--usage', `${admin.origin}/api/admin/v1/courses`], token(), /give the site's origin/);
    await expectRefused(['--usage', 'http://school.example'], token(), /the operator token is only sent over HTTPS/);
    await expectRefused(['--usage', admin.origin, '--days', '3651'], token(), /--days 3651 is not a whole number of days from 1 to 3650/);
    await expectRefused(['--usage', admin.origin, '--days', '3000'], token(), /answered 400: .*SCHOOLGATE_USAGE_RETENTION_DAYS/);
  });
});
