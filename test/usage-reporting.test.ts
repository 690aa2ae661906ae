import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { components } from '../generated/admin-api.js';
import { insertTrustedDocuments } from '../src/data/trusted-documents.js';
import { USAGE_EXPORT_FORMAT, type UsageExport } from '../src/usage/export-format.js';
import { flushUses } from '../src/usage/tally.js';
import { issueToken, type AdminApi } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeClient, type TestClient } from './support/oauth-fixtures.js';
import { runCli } from './support/processes.js';
import { seedUsage, type SeededUse } from './support/usage-seed.js';

type UsageList = components['schemas']['ApiUsageList'];
type UsedElement = components['schemas']['UsedElement'];

/** The elements the suite seeds at site A; the admin API calls of the suite itself are counted too, and left out. */
const SEEDED = new Set(['Course.title', 'Course.slug', 'Query.courses(first:)', 'Course.description', 'listCourses', 'list_courses']);
const DOCUMENT = 'query CourseTitles { courses(first: 5) { nodes { title } } }';
const DOCUMENT_ID = `sha256:${'a'.repeat(64)}`;

describeEachDatabase('usage reporting: admin API, CLI and export', (scratch) => {
  const admin = useAdminApi(scratch);
  let reader: TestClient;
  let writer: TestClient;
  let clientB: TestClient;
  let deletedRef: number;

  const seeded = (elements: readonly UsedElement[]) => elements.filter((element) => SEEDED.has(element.element));
  const names = (elements: readonly UsedElement[]) => seeded(elements).map((element) => `${element.api} ${element.element} ${element.uses}`);

  async function list(query: Record<string, string | number> = {}, api: AdminApi = admin.api): Promise<UsageList> {
    const answer = await api.call<UsageList>('listApiUsage', { query: { limit: 100, ...query } });
    expect(answer.status, answer.text).to.equal(200);
    return answer.body;
  }

  before(async () => {
    const { db, server } = admin;
    reader = await makeClient(db, server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'], name: 'Reader App' });
    writer = await makeClient(db, server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'], name: 'Writer App' });
    clientB = await makeClient(db, server.siteB, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'], name: 'Beta App' });
    const gone = await makeClient(db, server.siteA, { audience: 'member', confidential: false, scopes: ['openid'], name: 'Gone App' });
    deletedRef = gone.client.ref;
    const a = server.siteA.id;
    const uses: SeededUse[] = [
      { siteId: a, api: 'graphql', element: 'Course.title', clientRef: reader.client.ref, uses: 5 },
      { siteId: a, api: 'graphql', element: 'Course.title', clientRef: writer.client.ref, uses: 3 },
      { siteId: a, api: 'graphql', element: 'Course.slug', clientRef: reader.client.ref, uses: 2, daysAgo: 1 },
      { siteId: a, api: 'graphql', element: 'Query.courses(first:)', clientRef: writer.client.ref, uses: 1 },
      { siteId: a, api: 'graphql', element: 'Course.description', clientRef: reader.client.ref, uses: 9, daysAgo: 10 },
      { siteId: a, api: 'admin', element: 'listCourses', clientRef: reader.client.ref, uses: 4, daysAgo: 2 },
      { siteId: a, api: 'mcp', element: 'list_courses', clientRef: 0, uses: 7 },
      { siteId: a, api: 'mcp', element: 'list_courses', clientRef: writer.client.ref, uses: 1 },
      // Older than the 90 days kept: never in a report (the prune drops it).
      { siteId: a, api: 'graphql', element: 'Course.title', clientRef: reader.client.ref, uses: 1000, daysAgo: 100 },
      // A client deleted since: left out until the prune drops its rows.
      { siteId: a, api: 'graphql', element: 'Course.title', clientRef: deletedRef, uses: 50 },
      // Another school's counts.
      { siteId: server.siteB.id, api: 'graphql', element: 'Course.title', clientRef: clientB.client.ref, uses: 100 },
      { siteId: server.siteB.id, api: 'graphql', element: 'Course.slug', clientRef: clientB.client.ref, uses: 100 },
    ];
    await seedUsage(db, uses);
    await db('oauth_clients').where({ id: deletedRef }).delete();
    await insertTrustedDocuments(db, a, reader.client.ref, [{ documentId: DOCUMENT_ID, document: DOCUMENT, operationNames: ['CourseTitles'] }], new Date('2026-01-02T03:04:05Z'));
    await insertTrustedDocuments(db, server.siteB.id, clientB.client.ref, [{ documentId: `sha256:${'b'.repeat(64)}`, document: '{ viewer { id } }', operationNames: [] }], new Date());
  });

  describe('GET /usage', () => {
    it('lists every element used in the window, most used first (then by API and element), each with its clients most used first', async () => {
      const body = await list({ days: 7 });
      expect(body.days).to.equal(7);
      expect(body.to).to.equal(new Date().toISOString().slice(0, 10));
      expect(names(body.data)).to.deep.equal(['graphql Course.title 8', 'mcp list_courses 8', 'admin listCourses 4', 'graphql Course.slug 2', 'graphql Query.courses(first:) 1']);
      const title = body.data.find((element) => element.element === 'Course.title');
      expect(title?.clients.map((client) => [client.clientId, client.clientName, client.uses])).to.deep.equal([
        [reader.client.clientId, 'Reader App', 5],
        [writer.client.clientId, 'Writer App', 3],
      ]);
      expect(Date.parse(title?.clients[0]?.lastUsedAt ?? '')).to.be.greaterThan(Date.now() - 24 * 60 * 60 * 1000);
      expect(body.nextCursor).to.equal(null);
    });

    it('shows anonymous calls (public MCP tools) as a client with a null client_id', async () => {
      const body = await list({ api: 'mcp' });
      expect(body.data.map((element) => element.element)).to.deep.equal(['list_courses']);
      expect(body.data[0]?.clients.map((client) => [client.clientId, client.clientName, client.uses])).to.deep.equal([
        [null, null, 7],
        [writer.client.clientId, 'Writer App', 1],
      ]);
    });

    it('counts the days asked for: older days come in as the window grows, up to the retention', async () => {
      expect(names((await list({ days: 1 })).data)).to.not.include('graphql Course.slug 2');
      expect(names((await list({ days: 7 })).data)).to.not.include('graphql Course.description 9');
      expect(names((await list({ days: 11 })).data)).to.include('graphql Course.description 9');
      const longest = await list({ days: 90 });
      expect(names(longest.data)[0]).to.equal('graphql Course.description 9');
      expect(longest.data.find((element) => element.element === 'Course.title')?.uses).to.equal(8);
      // 30 days unless asked.
      expect((await list()).days).to.equal(30);
    });

    it('refuses days beyond the retention with a problem naming SCHOOLGATE_USAGE_RETENTION_DAYS, and days below 1', async () => {
      const beyond = await admin.api.call('listApiUsage', { query: { days: 91 } });
      expect(beyond.status).to.equal(400);
      expect(beyond.problem.code).to.equal('invalid_request');
      expect(beyond.problem.detail).to.contain('SCHOOLGATE_USAGE_RETENTION_DAYS');
      expect(beyond.problem.errors?.[0]?.parameter).to.equal('days');
      for (const days of ['0', '-1', 'ten', '3651']) {
        const refused = await admin.api.call('listApiUsage', { rawQuery: `days=${days}` });
        expect(refused.status, days).to.equal(400);
      }
      const exported = await admin.api.call('exportApiUsage', { query: { days: 91 } });
      expect(exported.status).to.equal(400);
      expect(exported.problem.detail).to.contain('SCHOOLGATE_USAGE_RETENTION_DAYS');
    });

    it('filters by API, by one element exactly, by prefix and by client', async () => {
      expect(names((await list({ api: 'graphql' })).data)).to.deep.equal(['graphql Course.description 9', 'graphql Course.title 8', 'graphql Course.slug 2', 'graphql Query.courses(first:) 1']);
      const one = await list({ element: 'Course.title' });
      expect(one.data.map((element) => element.element)).to.deep.equal(['Course.title']);
      expect(names((await list({ prefix: 'Course.', days: 7 })).data)).to.deep.equal(['graphql Course.title 8', 'graphql Course.slug 2']);
      // Coordinates are case-sensitive, whatever the database's collation.
      expect((await list({ element: 'course.title' })).data).to.deep.equal([]);
      expect((await list({ prefix: 'course.' })).data).to.deep.equal([]);
      // LIKE's wildcards are plain characters in a prefix.
      expect((await list({ prefix: 'Course%' })).data).to.deep.equal([]);
      expect((await list({ prefix: '_ourse.' })).data).to.deep.equal([]);
      const byWriter = await list({ clientId: writer.client.clientId, days: 7 });
      expect(names(byWriter.data)).to.deep.equal(['graphql Course.title 3', 'graphql Query.courses(first:) 1', 'mcp list_courses 1']);
      expect(byWriter.data.flatMap((element) => element.clients.map((client) => client.clientId))).to.satisfy((ids: unknown[]) => ids.every((id) => id === writer.client.clientId));
    });

    it('refuses element with prefix, an unknown client and another school’s client with 400, and needs school:read', async () => {
      const both = await admin.api.call('listApiUsage', { query: { element: 'Course.title', prefix: 'Course.' } });
      expect(both.status).to.equal(400);
      expect(both.problem.errors?.[0]?.parameter).to.equal('prefix');
      const unknown = await admin.api.call('listApiUsage', { query: { clientId: 'no-such-client' } });
      expect(unknown.status).to.equal(400);
      expect(unknown.problem.errors?.[0]?.parameter).to.equal('clientId');
      const foreign = await admin.api.call('listApiUsage', { query: { clientId: clientB.client.clientId } });
      expect(foreign.status).to.equal(400);
      const unknownParameter = await admin.api.call('listApiUsage', { rawQuery: 'site=other' });
      expect(unknownParameter.status).to.equal(400);
      const withoutScope = await admin.apiWithScopes(['courses:read']);
      expect((await withoutScope.call('listApiUsage')).status).to.equal(403);
      expect((await withoutScope.call('exportApiUsage')).status).to.equal(403);
      expect((await admin.api.call('listApiUsage', { token: null })).status).to.equal(401);
    });

    it('pages with a cursor: the pages together are the whole list, and a cursor of other filters is refused', async () => {
      const whole = (await list({ days: 90, api: 'graphql' })).data;
      const paged: UsedElement[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const body: UsageList = await list({ days: 90, api: 'graphql', limit: 1, ...(cursor === null ? {} : { cursor }) });
        expect(body.data.length).to.be.at.most(1);
        paged.push(...body.data);
        cursor = body.nextCursor;
        pages += 1;
      } while (cursor !== null && pages < 20);
      expect(paged).to.deep.equal(whole);
      expect(pages).to.equal(whole.length);
      const first = await list({ days: 90, api: 'graphql', limit: 1 });
      const otherFilter = await admin.api.call('listApiUsage', { query: { days: 90, api: 'mcp', limit: 1, cursor: first.nextCursor ?? '' } });
      expect(otherFilter.status).to.equal(400);
      expect(otherFilter.problem.code).to.equal('invalid_cursor');
      const forged = await admin.api.call('listApiUsage', { query: { cursor: 'bm90LWEtY3Vyc29y' } });
      expect(forged.status).to.equal(400);
      expect(forged.problem.code).to.equal('invalid_cursor');
    });

    it('never shows another school’s counts: each site sees its own', async () => {
      const atB = await list({ api: 'graphql' }, admin.apiB);
      expect(names(atB.data)).to.deep.equal(['graphql Course.slug 100', 'graphql Course.title 100']);
      expect(atB.data.flatMap((element) => element.clients.map((client) => client.clientId))).to.deep.equal([clientB.client.clientId, clientB.client.clientId]);
      const atA = await list({ api: 'graphql' });
      expect(atA.data.flatMap((element) => element.clients.map((client) => client.clientId))).to.not.include(clientB.client.clientId);
    });

    it('reports real admin API calls once they are flushed, under the calling client', async () => {
      const caller = await issueToken(admin.db, admin.server.siteA, { scopes: ['school:read'] });
      const api = admin.api.withToken(caller.token);
      for (let call = 0; call < 3; call += 1) expect((await api.call('getSchool')).status).to.equal(200);
      await flushUses(admin.db);
      const body = await list({ api: 'admin', element: 'getSchool' });
      expect(body.data[0]?.clients.find((client) => client.clientId === caller.app.client.clientId)?.uses).to.equal(3);
    });
  });

  describe('GET /usage/export and npx schoolgate usage export', () => {
    it('exports the site’s usage and every client’s trusted documents in the export format', async () => {
      const answer = await admin.api.call<UsageExport>('exportApiUsage', { query: { days: 7 } });
      expect(answer.status, answer.text).to.equal(200);
      const document = answer.body;
      expect(document).to.include({ format: USAGE_EXPORT_FORMAT, site: admin.origin, variant: 'A', days: 7 });
      expect(document.to).to.equal(new Date().toISOString().slice(0, 10));
      const title = document.usage.find((element) => element.element === 'Course.title');
      expect(title).to.deep.include({ api: 'graphql' });
      expect(title?.clients.map((client) => [client.clientId, client.uses])).to.deep.equal([
        [reader.client.clientId, 5],
        [writer.client.clientId, 3],
      ]);
      expect(document.usage.find((element) => element.element === 'list_courses')?.clients[0]).to.include({ clientId: null, clientName: null, uses: 7 });
      expect(document.usage.map((element) => element.element)).to.not.include('Course.description');
      expect(document.trustedDocuments).to.deep.equal([
        {
          clientId: reader.client.clientId,
          clientName: 'Reader App',
          kind: 'operator_created',
          documents: [{ id: DOCUMENT_ID, operationNames: ['CourseTitles'], document: DOCUMENT, publishedAt: '2026-01-02T03:04:05.000Z' }],
        },
      ]);
      const atB = await admin.apiB.call<UsageExport>('exportApiUsage');
      expect(atB.body.site).to.equal(admin.server.siteB.origin);
      expect(atB.body.trustedDocuments.map((client) => client.clientId)).to.deep.equal([clientB.client.clientId]);
      expect(atB.body.usage.flatMap((element) => element.clients.map((client) => client.clientId))).to.not.include(reader.client.clientId);
    });

    it('writes the same document from the CLI, to a file or to standard output', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'usage-export-'));
      const file = path.join(dir, 'usage.json');
      const env = { DATABASE_URL: scratch().url };
      const written = await runCli(['usage', 'export', '--site', admin.origin, '--days', '7', '--output', file], env);
      expect(written.code, written.stderr).to.equal(0);
      expect(written.stdout).to.contain(`wrote the usage of ${admin.origin}`);
      const fromFile = JSON.parse(fs.readFileSync(file, 'utf8')) as UsageExport;
      const printed = await runCli(['usage', 'export', '--site', admin.origin, '--days', '7'], env);
      expect(printed.code, printed.stderr).to.equal(0);
      const fromStdout = JSON.parse(printed.stdout) as UsageExport;
      const fromApi = (await admin.api.call<UsageExport>('exportApiUsage', { query: { days: 7 } })).body;
      const seededOnly = (document: UsageExport) => ({ ...document, generatedAt: '', usage: document.usage.filter((element) => SEEDED.has(element.element)) });
      expect(seededOnly(fromFile)).to.deep.equal(seededOnly(fromApi));
      expect(seededOnly(fromStdout)).to.deep.equal(seededOnly(fromApi));
      fs.rmSync(dir, { recursive: true, force: true });
    });
  });

  describe('npx schoolgate usage', () => {
    const env = () => ({ DATABASE_URL: scratch().url });

    it('prints a table of elements and clients, and the same as JSON with --json', async () => {
      const text = await runCli(['usage', '--site', admin.origin, '--days', '7', '--api', 'mcp'], env());
      expect(text.code, text.stderr).to.equal(0);
      expect(text.stdout).to.contain(`${admin.origin}: 1 element used from`);
      expect(text.stdout).to.match(/API\s+ELEMENT\s+CLIENT\s+USES\s+LAST USED/);
      expect(text.stdout).to.match(/MCP\s+list_courses\s+\(anonymous\)\s+7/);
      expect(text.stdout).to.contain(`${writer.client.clientId} (Writer App)`);
      const json = await runCli(['--json', 'usage', '--site', admin.origin, '--days', '7', '--prefix', 'Course.'], env());
      expect(json.code, json.stderr).to.equal(0);
      const data = JSON.parse(json.stdout) as { site: string; days: number; elements: UsedElement[] };
      expect(data).to.include({ site: admin.origin, days: 7 });
      expect(names(data.elements)).to.deep.equal(['graphql Course.title 8', 'graphql Course.slug 2']);
      const byClient = await runCli(['--json', 'usage', '--site', admin.origin, '--client', reader.client.clientId, '--element', 'Course.title'], env());
      expect((JSON.parse(byClient.stdout) as { elements: UsedElement[] }).elements.map((element) => element.clients.map((client) => client.uses))).to.deep.equal([[5]]);
    });

    it('refuses bad options with a message and a non-zero exit, and an unknown site or client', async () => {
      const beyond = await runCli(['usage', '--site', admin.origin, '--days', '91'], env());
      expect(beyond.code).to.equal(2);
      expect(beyond.stderr).to.contain('SCHOOLGATE_USAGE_RETENTION_DAYS');
      const api = await runCli(['usage', '--site', admin.origin, '--api', 'soap'], env());
      expect(api.code).to.equal(2);
      expect(api.stderr).to.contain('--api must be one of graphql, admin, mcp');
      const both = await runCli(['usage', '--site', admin.origin, '--element', 'a', '--prefix', 'b'], env());
      expect(both.code).to.equal(2);
      const exportFilter = await runCli(['usage', 'export', '--site', admin.origin, '--api', 'mcp'], env());
      expect(exportFilter.code).to.equal(2);
      expect(exportFilter.stderr).to.contain('usage export takes no --api');
      const site = await runCli(['--json', 'usage', '--site', 'https://nowhere.example'], env());
      expect(site.code).to.equal(1);
      const client = await runCli(['usage', '--site', admin.origin, '--client', clientB.client.clientId], env());
      expect(client.code).to.equal(1);
    });
  });
});
