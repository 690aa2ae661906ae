import { createHash } from 'node:crypto';
import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { grantRole } from '../src/accounts/roles.js';
import type { User } from '../src/accounts/users.js';
import { createClient, type ClientKind } from '../src/clients/clients.js';
import { insertTrustedDocuments, normalizeDocumentId } from '../src/data/trusted-documents.js';
import type { Database } from '../src/db/connection.js';
import { memberDocuments } from '../src/graphql/documents.js';
import { buildMemberSchema } from '../src/graphql/schema.js';
import { registeredDocuments } from '../src/graphql/trusted-documents/registered-documents.js';
import { updateSite, type Site } from '../src/sites/sites.js';
import { variantProfile } from '../src/variant.js';
import { describeEachDatabase } from './support/databases.js';
import { graphqlPath } from './support/member-api.js';
import { discover, exchangeCode, issueCode, makeUser, REDIRECT_URI, type TestClient } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';
import { clientPresetOutput, type PresetOutput } from './support/trusted-document-manifest.js';

const OPERATIONS = `
query ViewerEmail {
  viewer {
    id
    email
  }
}

query EnrolledCount($first: Int) {
  viewer {
    enrolledCourses(first: $first) {
      totalCount
    }
  }
}

query SchemaRoot {
  __schema {
    queryType {
      name
    }
  }
}

mutation ReadAll {
  markAllNotificationsRead {
    markedCount
  }
}
`;

const SCOPE = 'account:read account:write';

/** A member client of `kind` at `site` and an access token it got for `user` through the real token endpoint. */
async function clientWithToken(db: Database, site: Site, user: User, kind: ClientKind): Promise<{ ref: number; token: string }> {
  const { client } = await createClient(db, site.id, { name: `${kind} app`, audience: 'member', confidential: false, scopes: SCOPE.split(' '), redirectUris: [REDIRECT_URI], kind });
  const app: TestClient = { client, secret: null, oauthClient: { client_id: client.clientId, token_endpoint_auth_method: client.tokenEndpointAuthMethod }, auth: oauth.None() };
  const grant = await issueCode(db, site, app, user, SCOPE);
  const body = (await (await exchangeCode(await discover(site.origin), app, grant)).json()) as { access_token?: string };
  if (!body.access_token) throw new Error('no access token');
  return { ref: client.ref, token: body.access_token };
}

/** Publishes a client preset manifest for one client, as the publish command stores it. */
async function publish(db: Database, siteId: number, clientRef: number, manifest: Record<string, string>): Promise<void> {
  const documents = Object.entries(manifest).map(([hash, document]) => ({ documentId: normalizeDocumentId(hash) ?? hash, document, operationNames: [...document.matchAll(/(?:query|mutation)\s+(\w+)/g)].map((match) => match[1] ?? '') }));
  await insertTrustedDocuments(db, siteId, clientRef, documents, new Date());
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: { data?: Record<string, unknown> | null; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text === '' ? {} : (JSON.parse(text) as Answer['body']) };
}

describeEachDatabase('member GraphQL: sending a registered (trusted) document by id', (scratch) => {
  let server: TestServer;
  let url: string;
  let urlB: string;
  let sha1: PresetOutput;
  let sha256: PresetOutput;
  let operator: { ref: number; token: string };
  let vendor: { ref: number; token: string };
  let other: { ref: number; token: string };
  let elsewhere: { ref: number; token: string };

  const post = async (token: string, body: Record<string, unknown>, accept = 'application/json', target = url): Promise<Answer> =>
    answerOf(await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` }, body: JSON.stringify(body) }));
  const get = async (token: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> =>
    answerOf(await fetch(`${url}?${new URLSearchParams(params).toString()}`, { headers: { accept: 'application/json', authorization: `Bearer ${token}`, ...headers } }));
  const textOf = (output: PresetOutput, operation: string): string => output.manifest[output.hashOf[operation] ?? ''] ?? '';
  /** The client preset prefixes its sha256 ids (`sha256:<hex>`, as the persisted-documents appendix writes them); Apollo sends the hex alone. */
  const hex256 = (operation: string): string => (sha256.hashOf[operation] ?? '').replace(/^sha256:/, '');

  before(async function () {
    this.timeout(120000);
    server = await startTestServer(scratch());
    url = `${server.siteA.origin}${graphqlPath('A')}`;
    urlB = `${server.siteB.origin}${graphqlPath('A')}`;
    const db = scratch().db;
    const member = await makeUser(db, server.siteA, ['student'], 'Trusted Member');
    await grantRole(db, server.siteB.id, member.id, 'student');
    operator = await clientWithToken(db, server.siteA, member, 'operator_created');
    vendor = await clientWithToken(db, server.siteA, member, 'vendor_platform');
    other = await clientWithToken(db, server.siteA, member, 'operator_created');
    elsewhere = await clientWithToken(db, server.siteB, member, 'operator_created');
    sha1 = await clientPresetOutput('A', OPERATIONS);
    sha256 = await clientPresetOutput('A', OPERATIONS, 'sha256');
    for (const client of [operator, vendor]) {
      await publish(db, server.siteA.id, client.ref, sha1.manifest);
      await publish(db, server.siteA.id, client.ref, sha256.manifest);
    }
  });
  after(async () => server.stop());

  it('reads a manifest the client preset wrote: each id is the hash of its exact text', () => {
    for (const [output, algorithm] of [[sha1, 'sha1'], [sha256, 'sha256']] as const) {
      expect(Object.keys(output.hashOf)).to.have.members(['ViewerEmail', 'EnrolledCount', 'SchemaRoot', 'ReadAll']);
      for (const [hash, text] of Object.entries(output.manifest)) expect(`${algorithm}:${createHash(algorithm).update(text).digest('hex')}`).to.equal(normalizeDocumentId(hash));
    }
  });

  it('runs a document by the id the client preset embeds (bare sha1 and sha256 hashes, and sha256: prefixed), answering as the full text does', async () => {
    const full = await post(operator.token, { query: textOf(sha1, 'ViewerEmail') });
    expect(full.status).to.equal(200);
    expect(full.body.data?.viewer).to.have.property('email');
    const hash256 = hex256('ViewerEmail');
    for (const documentId of [sha1.hashOf.ViewerEmail, `sha1:${sha1.hashOf.ViewerEmail}`, sha256.hashOf.ViewerEmail, hash256, `sha256:${hash256.toUpperCase()}`]) {
      const byId = await post(operator.token, { documentId });
      expect(byId.status, String(documentId)).to.equal(200);
      expect(byId.body, String(documentId)).to.deep.equal(full.body);
    }
  });

  it('runs a document by id with variables and an operation name', async () => {
    const full = await post(operator.token, { query: textOf(sha256, 'EnrolledCount'), variables: { first: 5 } });
    const byId = await post(operator.token, { documentId: sha256.hashOf.EnrolledCount, variables: { first: 5 }, operationName: 'EnrolledCount' });
    expect(byId.body.errors).to.equal(undefined);
    expect(byId.body).to.deep.equal(full.body);
  });

  it("runs Apollo's persisted query extension (version 1, sha256Hash), alone and with the matching text", async () => {
    const full = await post(operator.token, { query: textOf(sha256, 'ViewerEmail') });
    const extensions = { persistedQuery: { version: 1, sha256Hash: hex256('ViewerEmail') } };
    expect((await post(operator.token, { extensions })).body).to.deep.equal(full.body);
    expect((await post(operator.token, { query: textOf(sha256, 'ViewerEmail'), extensions })).body).to.deep.equal(full.body);
    const apolloGet = await get(operator.token, { extensions: JSON.stringify(extensions) });
    expect(apolloGet.body).to.deep.equal(full.body);
  });

  it('runs a query by id over GET with a private, revalidated cache: ETag, Vary and 304 for a current copy', async () => {
    const params = { documentId: sha256.hashOf.EnrolledCount ?? '', variables: JSON.stringify({ first: 3 }) };
    const first = await get(operator.token, params);
    expect(first.status).to.equal(200);
    expect(first.body.data?.viewer).to.deep.equal({ enrolledCourses: { totalCount: 0 } });
    expect(first.headers.get('cache-control')).to.equal('private, no-cache');
    expect(first.headers.get('vary')).to.match(/Authorization/i);
    const etag = first.headers.get('etag');
    expect(etag).to.match(/^"[\w-]+"$/);
    const revalidated = await get(operator.token, params, { 'if-none-match': etag ?? '' });
    expect(revalidated.status).to.equal(304);
    expect(revalidated.text).to.equal('');
    expect(revalidated.headers.get('etag')).to.equal(etag);
    const changed = await get(operator.token, params, { 'if-none-match': '"another"' });
    expect(changed.status).to.equal(200);
    expect(changed.text).to.equal(first.text);
  });

  it('keeps every other answer uncached: a POST by id, a GET of a full text, and a GET by id that failed', async () => {
    expect((await post(operator.token, { documentId: sha1.hashOf.ViewerEmail })).headers.get('cache-control')).to.equal('no-store');
    const fullGet = await get(operator.token, { query: textOf(sha1, 'ViewerEmail') });
    expect(fullGet.status).to.equal(200);
    expect(fullGet.headers.get('cache-control')).to.equal('no-store');
    expect(fullGet.headers.get('etag')).to.equal(null);
    const unknown = await get(operator.token, { documentId: `sha256:${'0'.repeat(64)}` });
    expect(unknown.headers.get('cache-control')).to.equal('no-store');
  });

  it('refuses a mutation by id over GET with 405, and runs it by id over POST', async () => {
    const overGet = await get(operator.token, { documentId: sha1.hashOf.ReadAll ?? '' });
    expect(overGet.status).to.equal(405);
    expect(overGet.headers.get('allow')).to.equal('POST');
    const overPost = await post(operator.token, { documentId: sha1.hashOf.ReadAll });
    expect(overPost.status).to.equal(200);
    expect(overPost.body.data).to.deep.equal({ markAllNotificationsRead: { markedCount: 0 } });
  });

  it('answers an unknown id with one PERSISTED_QUERY_NOT_FOUND error: 200 for application/json, 400 for application/graphql-response+json', async () => {
    const documentId = `sha256:${'a'.repeat(64)}`;
    const json = await post(operator.token, { documentId });
    expect(json.status).to.equal(200);
    expect(json.body.data).to.equal(undefined);
    expect(json.body.errors).to.have.length(1);
    expect(json.body.errors?.[0]?.extensions).to.deep.equal({ code: 'PERSISTED_QUERY_NOT_FOUND', documentId });
    expect(json.body.errors?.[0]?.message).to.contain('PersistedQueryNotFound').and.contain(documentId);
    const graphqlResponse = await post(operator.token, { documentId }, 'application/graphql-response+json');
    expect(graphqlResponse.status).to.equal(400);
    expect(graphqlResponse.body.errors?.[0]?.extensions?.code).to.equal('PERSISTED_QUERY_NOT_FOUND');
  });

  it("never runs another client's document, nor a document registered at another site: the same answer as an unknown id", async () => {
    const documentId = sha256.hashOf.ViewerEmail ?? '';
    const ofAnother = await post(other.token, { documentId });
    expect(ofAnother.body.errors?.[0]?.extensions?.code).to.equal('PERSISTED_QUERY_NOT_FOUND');
    expect(ofAnother.body.data).to.equal(undefined);
    // The client of site B has its documents at site B only; a row naming site A's site with its ref is not its own either.
    await publish(scratch().db, server.siteB.id, elsewhere.ref, { [sha256.hashOf.ViewerEmail ?? '']: textOf(sha256, 'ViewerEmail') });
    expect((await post(elsewhere.token, { documentId }, 'application/json', urlB)).body.data?.viewer).to.have.property('email');
    await publish(scratch().db, server.siteB.id, other.ref, { [sha256.hashOf.EnrolledCount ?? '']: textOf(sha256, 'EnrolledCount') });
    const otherSite = await post(other.token, { documentId: sha256.hashOf.EnrolledCount });
    expect(otherSite.body.errors?.[0]?.extensions?.code).to.equal('PERSISTED_QUERY_NOT_FOUND');
  });

  it('refuses malformed ids, an id with a text of another hash, and two ids that differ, with 400 and a code, before any lookup', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ documentId: 'abc' }, 'INVALID_DOCUMENT_ID'],
      [{ documentId: 42 }, 'INVALID_DOCUMENT_ID'],
      [{ documentId: `md5:${'a'.repeat(32)}` }, 'INVALID_DOCUMENT_ID'],
      [{ extensions: { persistedQuery: { version: 2, sha256Hash: hex256('ViewerEmail') } } }, 'INVALID_DOCUMENT_ID'],
      [{ extensions: { persistedQuery: { version: 1, sha256Hash: 'xyz' } } }, 'INVALID_DOCUMENT_ID'],
      [{ documentId: sha256.hashOf.ViewerEmail, query: '{ viewer { id } }' }, 'DOCUMENT_ID_MISMATCH'],
      [{ documentId: sha1.hashOf.ViewerEmail, query: textOf(sha1, 'EnrolledCount') }, 'DOCUMENT_ID_MISMATCH'],
      [{ documentId: sha256.hashOf.ViewerEmail, extensions: { persistedQuery: { version: 1, sha256Hash: hex256('EnrolledCount') } } }, 'DOCUMENT_ID_MISMATCH'],
      [{ documentId: sha256.hashOf.ViewerEmail, variables: [1] }, 'BAD_REQUEST'],
    ];
    for (const [body, code] of cases) {
      const answer = await post(operator.token, body);
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.body.errors?.[0]?.extensions?.code, JSON.stringify(body)).to.equal(code);
      expect(answer.body.errors?.[0]?.message).to.be.a('string').and.not.equal('');
    }
    const badGet = await get(operator.token, { documentId: sha256.hashOf.EnrolledCount ?? '', variables: '{nope' });
    expect(badGet.status).to.equal(400);
    expect(badGet.body.errors?.[0]?.message).to.contain('variables');
  });

  it('reads a null documentId as none: the text runs', async () => {
    const answer = await post(operator.token, { documentId: null, query: '{ viewer { id } }' });
    expect(answer.body.errors).to.equal(undefined);
    expect(answer.body.data?.viewer).to.have.property('id');
  });

  it('runs the text of a matching but unregistered id as a text request (the retry of an Apollo client)', async () => {
    const text = '{ viewer { id } }';
    const hash = createHash('sha256').update(text).digest('hex');
    const answer = await post(operator.token, { query: text, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    expect(answer.body.errors).to.equal(undefined);
    expect(answer.body.data?.viewer).to.have.property('id');
  });

  describe('the site setting trustedDocumentsRequiredFor', () => {
    after(async () => updateSite(scratch().db, server.siteA.id, { trustedDocumentsRequiredFor: [] }));

    it('refuses a document text from a client of a listed kind, naming the setting and the kind, and runs its registered documents', async () => {
      await updateSite(scratch().db, server.siteA.id, { trustedDocumentsRequiredFor: ['vendor_platform'] });
      const refused = await post(vendor.token, { query: textOf(sha1, 'ViewerEmail') });
      expect(refused.status).to.equal(200);
      expect(refused.body.data).to.equal(undefined);
      expect(refused.body.errors).to.have.length(1);
      expect(refused.body.errors?.[0]?.message).to.contain('trustedDocumentsRequiredFor').and.contain('vendor_platform');
      expect(refused.body.errors?.[0]?.extensions).to.deep.equal({ code: 'TRUSTED_DOCUMENT_REQUIRED', setting: 'trustedDocumentsRequiredFor', clientKind: 'vendor_platform' });
      expect((await post(vendor.token, { query: textOf(sha1, 'ViewerEmail') }, 'application/graphql-response+json')).status).to.equal(400);
      expect((await get(vendor.token, { query: textOf(sha1, 'ViewerEmail') })).body.errors?.[0]?.extensions?.code).to.equal('TRUSTED_DOCUMENT_REQUIRED');
      // Its registered documents, by id and by Apollo's extension with the text.
      expect((await post(vendor.token, { documentId: sha1.hashOf.ViewerEmail })).body.data?.viewer).to.have.property('email');
      const apolloRetry = await post(vendor.token, { query: textOf(sha256, 'ViewerEmail'), extensions: { persistedQuery: { version: 1, sha256Hash: hex256('ViewerEmail') } } });
      expect(apolloRetry.body.data?.viewer).to.have.property('email');
      // An unregistered text with its matching hash is still a text.
      const text = '{ viewer { id } }';
      const unregistered = await post(vendor.token, { query: text, extensions: { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(text).digest('hex') } } });
      expect(unregistered.body.errors?.[0]?.extensions?.code).to.equal('TRUSTED_DOCUMENT_REQUIRED');
      // A client of a kind the site does not list sends any document.
      expect((await post(operator.token, { query: text })).body.data?.viewer).to.have.property('id');
    });

    it('holds introspection to the requirement too: only a registered introspection document runs', async () => {
      await updateSite(scratch().db, server.siteA.id, { trustedDocumentsRequiredFor: ['operator_created', 'vendor_platform'] });
      const introspection = await post(operator.token, { query: '{ __schema { queryType { name } } }' });
      expect(introspection.body.errors?.[0]?.extensions?.code).to.equal('TRUSTED_DOCUMENT_REQUIRED');
      expect(introspection.body.errors?.[0]?.message).to.contain('operator_created');
      expect((await post(operator.token, { documentId: sha1.hashOf.SchemaRoot })).body.data).to.deep.equal({ __schema: { queryType: { name: 'Query' } } });
    });

    it('lets every client send any document again once the setting is emptied', async () => {
      await updateSite(scratch().db, server.siteA.id, { trustedDocumentsRequiredFor: [] });
      expect((await post(vendor.token, { query: '{ viewer { id } }' })).body.data?.viewer).to.have.property('id');
    });
  });

  describe('the cache of registered documents', () => {
    it('reads a document once per lifetime, stops serving a deleted one after it, and remembers no unknown id', async () => {
      const db = scratch().db;
      const schema = buildMemberSchema(variantProfile('A')).schema;
      let now = 0;
      let reads = 0;
      const counting = (query: { sql: string }) => {
        if (/^select/i.test(query.sql) && query.sql.includes('trusted_documents')) reads += 1;
      };
      db.on('query', counting);
      try {
        const cache = registeredDocuments(db, memberDocuments(schema), 5000, 10, () => now);
        const documentId = sha256.hashOf.ViewerEmail ?? '';
        const first = await cache.find(server.siteA.id, operator.ref, documentId);
        expect(first).to.have.property('kind', 'Document');
        await Promise.all([1, 2, 3].map(() => cache.find(server.siteA.id, operator.ref, documentId)));
        expect(reads).to.equal(1);
        await db('trusted_documents').where({ site_id: server.siteA.id, client_ref: operator.ref, document_id: documentId }).delete();
        now = 4999;
        expect(await cache.find(server.siteA.id, operator.ref, documentId)).to.equal(first);
        now = 5000;
        expect(await cache.find(server.siteA.id, operator.ref, documentId)).to.equal(null);
        expect(reads).to.equal(2);
        await cache.find(server.siteA.id, operator.ref, documentId);
        expect(reads).to.equal(3);
      } finally {
        db.off('query', counting);
      }
    });
  });
});
