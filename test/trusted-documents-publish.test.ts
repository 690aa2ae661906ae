import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createClient, type OAuthClient } from '../src/clients/clients.js';
import { TRUSTED_DOCUMENT_LIMITS } from '../src/graphql/trusted-documents/limits.js';
import { setBeta, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { REDIRECT_URI } from './support/oauth-fixtures.js';
import { runCli } from './support/processes.js';
import { clientPresetOutput } from './support/trusted-document-manifest.js';

type Published = Schemas['TrustedDocumentsPublished'];
type DocumentList = Schemas['TrustedDocumentList'];
type School = Schemas['School'];

/** A frontend's operations, as a team writes them for graphql-codegen's client preset (variant A, the test server's). */
const OPERATIONS = `
query ViewerName {
  viewer {
    id
    name
  }
}

query EnrolledCourses($first: Int) {
  viewer {
    enrolledCourses(first: $first) {
      totalCount
    }
  }
}

mutation ReadAllNotifications {
  markAllNotificationsRead {
    markedCount
  }
}
`;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A manifest entry whose hash is right, keyed by the bare hex digits (the client preset writes `sha256:<hex>`; both are accepted). */
const entry = (text: string): Record<string, string> => ({ [sha256(text)]: text });

/** Two full pages of every course's syllabus: past the member API's cost limit (250,000 fields). */
const syllabusPage = (alias: string) => `${alias}: enrolledCourses(first: 100) { nodes { sections { lectures { id title state isLocked duration position } } } }`;
const TOO_COSTLY = `query TooCostly { viewer { ${syllabusPage('a')} ${syllabusPage('b')} } }`;

describeEachDatabase('trusted documents: publishing', (scratch) => {
  const admin = useAdminApi(scratch);
  let manifest: Record<string, string>;
  let app: OAuthClient;
  let otherApp: OAuthClient;
  let serviceApp: OAuthClient;
  let siteBApp: OAuthClient;
  let folder: string;
  const env = () => ({ DATABASE_URL: scratch().url, SCHOOLGATE_VARIANT: 'A' });

  const member = (name: string, siteId: number) =>
    createClient(admin.db, siteId, { name, audience: 'member', confidential: false, scopes: ['account:read', 'account:write'], redirectUris: [REDIRECT_URI] }).then(({ client }) => client);

  /** Every stored row, to show that a refused request changed nothing. */
  const stored = () => admin.db('trusted_documents').orderBy('id').select('site_id', 'client_ref', 'document_id', 'published_at');

  const publish = (clientId: string, body: unknown) => admin.api.call<Published>('publishTrustedDocuments', { path: { clientId }, body });

  before(async function () {
    this.timeout(120_000);
    manifest = (await clientPresetOutput('A', OPERATIONS, 'sha256')).manifest;
    await setBeta(admin.api, true);
    app = await member('Study Buddy', admin.server.siteA.id);
    otherApp = await member('Quiz Pal', admin.server.siteA.id);
    siteBApp = await member('Elsewhere', admin.server.siteB.id);
    serviceApp = (await createClient(admin.db, admin.server.siteA.id, { name: 'Sync job', audience: 'operator', confidential: true, scopes: ['school:read'], redirectUris: [], kind: 'service' })).client;
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-documents-'));
  });
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  describe('through the admin API', () => {
    it("publishes the client preset's manifest: every document by its sha256 id, with its operation names", async () => {
      expect(Object.keys(manifest)).to.have.length(3);
      for (const [key, text] of Object.entries(manifest)) expect(key).to.equal(`sha256:${sha256(text)}`);
      const answer = await publish(app.clientId, { documents: manifest });
      expect(answer.status, answer.text).to.equal(200);
      const ids = Object.keys(manifest);
      expect(answer.body.added).to.have.members(ids);
      expect(answer.body).to.include({ clientId: app.clientId, unchanged: 0 });
      expect(answer.body.removed).to.deep.equal([]);
      expect(answer.body.data.map((document) => document.operationNames).flat()).to.have.members(['ViewerName', 'EnrolledCourses', 'ReadAllNotifications']);

      const listed = await admin.api.call<DocumentList>('listTrustedDocuments', { path: { clientId: app.clientId } });
      expect(listed.status).to.equal(200);
      expect(listed.body.data.map((document) => document.id)).to.have.members(ids);
      // The exact text is stored under its id: what the member API runs when the client sends the id.
      const rows = (await admin.db('trusted_documents').where({ client_ref: app.ref }).select('document_id', 'document')) as Array<{ document_id: string; document: string }>;
      for (const row of rows) expect(row.document).to.equal(manifest[row.document_id]);
    });

    it('is idempotent: publishing the same manifest again adds nothing and keeps the publication times', async () => {
      const before = await stored();
      const answer = await publish(app.clientId, { documents: manifest });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body).to.include({ unchanged: 3 });
      expect(answer.body.added).to.deep.equal([]);
      expect(await stored()).to.deep.equal(before);
    });

    it('accepts bare hex keys, and keeps each client’s documents apart', async () => {
      const [key, text] = Object.entries(manifest)[0] ?? [];
      const answer = await publish(otherApp.clientId, { documents: { [(key ?? '').slice('sha256:'.length)]: text } });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body.added).to.deep.equal([key]);
      expect((await admin.api.call<DocumentList>('listTrustedDocuments', { path: { clientId: otherApp.clientId } })).body.data).to.have.length(1);
      expect((await admin.api.call<DocumentList>('listTrustedDocuments', { path: { clientId: app.clientId } })).body.data).to.have.length(3);
    });

    it('with replace: true removes the documents the manifest leaves out', async () => {
      const [first, ...rest] = Object.entries(manifest);
      if (!first) throw new Error('empty manifest');
      const answer = await publish(app.clientId, { documents: Object.fromEntries([first]), replace: true });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body.removed).to.have.members(rest.map(([key]) => key));
      expect(answer.body.data.map((document) => document.id)).to.deep.equal([first[0]]);
      // Back to the whole set for the tests below.
      expect((await publish(app.clientId, { documents: manifest })).body.added).to.have.length(2);
    });

    it('publishes the same manifest from several requests at once: each document stored once, every request answered 200', async () => {
      const racer = await member('Racer', admin.server.siteA.id);
      const answers = await Promise.all(Array.from({ length: 4 }, () => publish(racer.clientId, { documents: manifest })));
      for (const answer of answers) expect(answer.status, answer.text).to.equal(200);
      // Every document was added by exactly one of them.
      expect(answers.flatMap((answer) => answer.body.added)).to.have.members(Object.keys(manifest));
      expect(await admin.db('trusted_documents').where({ client_ref: racer.ref }).count({ count: '*' }).first()).to.satisfy((row: { count: number | string }) => Number(row.count) === 3);
    });

    it('removes one document; removing it again is 404', async () => {
      const [key] = Object.keys(manifest);
      if (!key) throw new Error('empty manifest');
      const removed = await admin.api.call('deleteTrustedDocument', { path: { clientId: app.clientId, documentId: key } });
      expect(removed.status, removed.text).to.equal(204);
      // The bare hex digits name the same document.
      const again = await admin.api.call('deleteTrustedDocument', { path: { clientId: app.clientId, documentId: key.slice('sha256:'.length) } });
      expect(again.status).to.equal(404);
      expect(again.problem.detail).to.contain(key);
      expect((await admin.api.call<DocumentList>('listTrustedDocuments', { path: { clientId: app.clientId } })).body.data).to.have.length(2);
      await publish(app.clientId, { documents: manifest });
    });

    describe('refuses bad input, and stores nothing', () => {
      let before: unknown;
      beforeEach(async () => {
        before = await stored();
      });
      afterEach(async () => {
        expect(await stored()).to.deep.equal(before);
      });

      it('a hash that is not the hash of its document (422, naming the right one)', async () => {
        const text = 'query Renamed { viewer { id } }';
        const wrong = sha256('query Original { viewer { id } }');
        const answer = await publish(app.clientId, { documents: { ...entry('query Fine { viewer { id } }'), [wrong]: text } });
        expect(answer.status, answer.text).to.equal(422);
        expect(answer.problem.code).to.equal('invalid_trusted_documents');
        expect(answer.problem.errors).to.deep.equal([{ pointer: `/documents/${wrong}`, message: `does not match the document: its sha256 is sha256:${sha256(text)} (the hash is of the exact document text, UTF-8)` }]);
      });

      it('a key that is no hash, a document that does not parse, one that does not validate and one too costly: every reason at once', async () => {
        const unparsable = 'query Broken { viewer { id }';
        const invalid = 'query Misspelt { viewer { nmae } }';
        const deep = TOO_COSTLY;
        const answer = await publish(app.clientId, { documents: { 'not-a-hash': 'query A { viewer { id } }', ...entry(unparsable), ...entry(invalid), ...entry(deep) } });
        expect(answer.status, answer.text).to.equal(422);
        const errors = answer.problem.errors ?? [];
        expect(errors.map((error) => error.pointer)).to.have.members(['/documents/not-a-hash', `/documents/${sha256(unparsable)}`, `/documents/${sha256(invalid)}`, `/documents/${sha256(deep)}`]);
        const messageAt = (key: string) => errors.find((error) => error.pointer === `/documents/${key}`)?.message ?? '';
        expect(messageAt('not-a-hash')).to.contain('is not a document hash');
        expect(messageAt(sha256(unparsable))).to.match(/^sha256:[0-9a-f]{64} \(anonymous operation\): Syntax Error: Expected Name, found <EOF>\./);
        expect(messageAt(sha256(invalid))).to.equal(`sha256:${sha256(invalid)} (operation Misspelt): Cannot query field "nmae" on type "Viewer". Did you mean "name"? (line 1, column 27)`);
        expect(messageAt(sha256(deep))).to.match(/\(operation TooCostly\): the query could resolve about [0-9]+ fields; the limit is 250000/);
      });

  
      it('an empty manifest, a non-string document, too many documents, a document too large (400, by the contract)', async () => {
        expect((await publish(app.clientId, { documents: {} })).status).to.equal(400);
        expect((await publish(app.clientId, { documents: { [sha256('x')]: 42 } })).status).to.equal(400);
        const many = Object.assign({}, ...Array.from({ length: TRUSTED_DOCUMENT_LIMITS.maxDocuments + 1 }, (_, index) => entry(`query Q${index} { viewer { id } }`))) as Record<string, string>;
        const tooMany = await publish(app.clientId, { documents: many });
        expect(tooMany.status).to.equal(400);
        expect(JSON.stringify(tooMany.problem.errors)).to.contain('/documents');
        const big = `query Big { viewer { id } } # ${'x'.repeat(TRUSTED_DOCUMENT_LIMITS.maxDocumentBytes)}`;
        expect((await publish(app.clientId, { documents: entry(big) })).status).to.equal(400);
        expect((await publish(app.clientId, { documents: manifest, extra: true })).status).to.equal(400);
      });

      it('a request body over 6 MB (413)', async () => {
        const huge = { documents: entry(`query Huge { viewer { id } } # ${'x'.repeat(TRUSTED_DOCUMENT_LIMITS.maxManifestBytes)}`) };
        const answer = await publish(app.clientId, huge);
        expect(answer.status).to.equal(413);
        expect(answer.problem).to.include({ code: 'request_too_large', detail: 'The request body is larger than 6 MB.' });
      });

      it('an unknown client, another site’s client (404) and a service client (409)', async () => {
        expect((await publish('no-such-client', { documents: manifest })).status).to.equal(404);
        expect((await publish(siteBApp.clientId, { documents: manifest })).status).to.equal(404);
        const service = await publish(serviceApp.clientId, { documents: manifest });
        expect(service.status).to.equal(409);
        expect(service.problem.code).to.equal('application_is_service_client');
        expect((await admin.api.call('listTrustedDocuments', { path: { clientId: siteBApp.clientId } })).status).to.equal(404);
        expect((await admin.api.call('deleteTrustedDocument', { path: { clientId: app.clientId, documentId: 'nonsense' } })).status).to.equal(400);
      });

      it('a token without school:write (403), and none while the MCP connections beta is off (409)', async () => {
        const reader = await admin.apiWithScopes(['school:read']);
        expect((await reader.call('publishTrustedDocuments', { path: { clientId: app.clientId }, body: { documents: manifest } })).status).to.equal(403);
        expect((await reader.call('listTrustedDocuments', { path: { clientId: app.clientId } })).status).to.equal(200);
        await setBeta(admin.api, false);
        try {
          const off = await publish(app.clientId, { documents: manifest });
          expect(off.status).to.equal(409);
          expect(off.problem.code).to.equal('mcp_connections_disabled');
        } finally {
          await setBeta(admin.api, true);
        }
      });
    });
  });

  describe('through the CLI', () => {
    const write = (name: string, content: unknown) => {
      const file = path.join(folder, name);
      fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return file;
    };

    it('documents publish, list and remove', async () => {
      const cliApp = await member('CLI App', admin.server.siteA.id);
      const file = write('persisted-documents.json', manifest);
      const published = await runCli(['documents', 'publish', '--site', admin.origin, '--client', cliApp.clientId, file], env());
      expect(published.code, published.stderr).to.equal(0);
      expect(published.stdout).to.contain(`published 3 new documents for ${cliApp.clientId} (CLI App, operator_created)`);

      const again = await runCli(['--json', 'documents', 'publish', '--site', admin.origin, '--client', cliApp.clientId, file], env());
      expect(again.code, again.stderr).to.equal(0);
      expect(JSON.parse(again.stdout)).to.include({ unchanged: 3 });

      const listed = await runCli(['--json', 'documents', 'list', '--site', admin.origin, '--client', cliApp.clientId], env());
      const list = JSON.parse(listed.stdout) as { documents: Array<{ id: string; operationNames: string[] }> };
      expect(list.documents.map((document) => document.id)).to.have.members(Object.keys(manifest));

      const [key, text] = Object.entries(manifest)[0] ?? [];
      const removed = await runCli(['documents', 'remove', '--site', admin.origin, '--client', cliApp.clientId, key ?? ''], env());
      expect(removed.code, removed.stderr).to.equal(0);
      expect(removed.stdout).to.contain(`removed ${key}`);

      const replaced = await runCli(['--json', 'documents', 'publish', '--site', admin.origin, '--client', cliApp.clientId, '--replace', write('one.json', { [key ?? '']: text })], env());
      expect(JSON.parse(replaced.stdout)).to.deep.include({ added: [key], unchanged: 0 });
      expect((JSON.parse(replaced.stdout) as { documents: unknown[] }).documents).to.have.length(1);
    });

    it('refuses bad manifests with every reason and a non-zero exit, storing nothing', async () => {
      const before = await stored();
      const site = ['--site', admin.origin, '--client', app.clientId];
      const invalid = 'query Misspelt { viewer { nmae } }';
      const refused = await runCli(['documents', 'publish', ...site, write('bad.json', { ...manifest, ...entry(invalid), [sha256('other')]: 'query X { viewer { id } }' })], env());
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.contain('The manifest was refused and nothing was published: 2 problems.');
      expect(refused.stderr).to.contain(`/${sha256(invalid)}: sha256:${sha256(invalid)} (operation Misspelt): Cannot query field "nmae" on type "Viewer".`);
      expect(refused.stderr).to.contain(`/${sha256('other')}: does not match the document`);

      const json = await runCli(['--json', 'documents', 'publish', ...site, write('bad2.json', entry('query { viewer {'))], env());
      expect(json.code).to.equal(1);
      expect(JSON.parse(json.stdout)).to.include({ error: 'invalid_trusted_documents' });

      const notJson = await runCli(['documents', 'publish', ...site, write('not.json', '{ nope')], env());
      expect(notJson.code).to.equal(1);
      expect(notJson.stderr).to.match(/is not JSON/);

      const many = Object.assign({}, ...Array.from({ length: TRUSTED_DOCUMENT_LIMITS.maxDocuments + 1 }, (_, index) => entry(`query Q${index} { viewer { id } }`))) as Record<string, string>;
      const tooMany = await runCli(['documents', 'publish', ...site, write('many.json', many)], env());
      expect(tooMany.code).to.equal(1);
      expect(tooMany.stderr).to.contain('holds 2,001 documents; at most 2,000 may be published at once');

      const big = await runCli(['documents', 'publish', ...site, write('big.json', entry(`query Big { viewer { id } } # ${'x'.repeat(TRUSTED_DOCUMENT_LIMITS.maxDocumentBytes)}`))], env());
      expect(big.code).to.equal(1);
      expect(big.stderr).to.contain('a document may have at most 100 KB');

      const service = await runCli(['documents', 'publish', '--site', admin.origin, '--client', serviceApp.clientId, write('ok.json', manifest)], env());
      expect(service.code).to.equal(1);
      expect(service.stderr).to.contain('is a service client');
      const elsewhere = await runCli(['documents', 'list', '--site', admin.origin, '--client', siteBApp.clientId], env());
      expect(elsewhere.code).to.equal(1);
      expect(elsewhere.stderr).to.contain(`No OAuth application of this site has the client_id ${siteBApp.clientId}`);
      expect(await stored()).to.deep.equal(before);
    });
  });

  describe('the site setting trustedDocumentsRequiredFor', () => {
    it('round-trips through PATCH /school and GET /school; an unknown kind is refused', async () => {
      const current = await admin.api.call<School>('getSchool');
      expect(current.body.trustedDocumentsRequiredFor).to.deep.equal([]);
      const patched = await admin.api.call<School>('updateSchool', { headers: { 'if-match': current.headers.get('etag') ?? '' }, body: { trustedDocumentsRequiredFor: ['operator_created', 'vendor_platform'] } });
      expect(patched.status, patched.text).to.equal(200);
      // Stored in one canonical order.
      expect(patched.body.trustedDocumentsRequiredFor).to.deep.equal(['vendor_platform', 'operator_created']);
      const read = await admin.api.call<School>('getSchool');
      expect(read.body.trustedDocumentsRequiredFor).to.deep.equal(['vendor_platform', 'operator_created']);
      const bad = await admin.api.call('updateSchool', { headers: { 'if-match': read.headers.get('etag') ?? '' }, body: { trustedDocumentsRequiredFor: ['service'] } });
      expect(bad.status).to.equal(400);
      expect(bad.problem.errors?.[0]?.pointer).to.match(/^\/trustedDocumentsRequiredFor/);
      const cleared = await admin.api.call<School>('updateSchool', { headers: { 'if-match': read.headers.get('etag') ?? '' }, body: { trustedDocumentsRequiredFor: [] } });
      expect(cleared.body.trustedDocumentsRequiredFor).to.deep.equal([]);
    });

    it('round-trips through `schoolgate site set --trusted-documents-required-for`', async () => {
      const set = await runCli(['--json', 'site', 'set', '--site', admin.origin, '--trusted-documents-required-for', 'metadata_document, vendor_platform'], env());
      expect(set.code, set.stderr).to.equal(0);
      expect(JSON.parse(set.stdout)).to.deep.include({ trustedDocumentsRequiredFor: ['vendor_platform', 'metadata_document'] });
      expect((await admin.api.call<School>('getSchool')).body.trustedDocumentsRequiredFor).to.deep.equal(['vendor_platform', 'metadata_document']);

      const text = await runCli(['site', 'set', '--site', admin.origin, '--name', (await admin.api.call<School>('getSchool')).body.name], env());
      expect(text.stdout).to.contain('trusted documents required for: vendor_platform, metadata_document');

      const bad = await runCli(['site', 'set', '--site', admin.origin, '--trusted-documents-required-for', 'service'], env());
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.contain('unknown client kind "service": use vendor_platform, metadata_document, operator_created');
      expect((await admin.api.call<School>('getSchool')).body.trustedDocumentsRequiredFor).to.deep.equal(['vendor_platform', 'metadata_document']);

      const cleared = await runCli(['--json', 'site', 'set', '--site', admin.origin, '--trusted-documents-required-for', ''], env());
      expect(JSON.parse(cleared.stdout)).to.deep.include({ trustedDocumentsRequiredFor: [] });
    });
  });
});
