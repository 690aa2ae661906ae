import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { createClient, findClientWithSecret } from '../src/clients/clients.js';
import { setBeta, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { discover, exchangeCode, issueCode, makeUser, postForm, REDIRECT_URI, type TestClient } from './support/oauth-fixtures.js';

type Application = Schemas['OAuthApplication'];
type ApplicationWithSecret = Schemas['OAuthApplicationWithSecret'];
type ApplicationList = Schemas['OAuthApplicationList'];

const MEMBER_APP = {
  name: 'Study Buddy',
  audience: 'member',
  confidential: false,
  redirectUris: [REDIRECT_URI],
  scopes: ['openid', 'profile', 'account:read'],
} as const;

/** The TestClient oauth-fixtures works with, for an application created through the API. */
function testClientOf(application: ApplicationWithSecret, secret: string | null): TestClient {
  return {
    client: { clientId: application.clientId } as TestClient['client'],
    secret,
    oauthClient: { client_id: application.clientId, token_endpoint_auth_method: application.tokenEndpointAuthMethod },
    auth: secret === null ? oauth.None() : oauth.ClientSecretPost(secret),
  };
}

describeEachDatabase('admin API: OAuth applications', (scratch) => {
  const admin = useAdminApi(scratch, { siteB: false });

  async function create(body: Record<string, unknown>): Promise<ApplicationWithSecret> {
    const answer = await admin.api.call<ApplicationWithSecret>('createOAuthApplication', { body });
    expect(answer.status, answer.text).to.equal(201);
    return answer.body;
  }

  /** Issues a member token pair for `application` through the real token endpoint. */
  async function memberTokenFor(application: ApplicationWithSecret, secret: string | null): Promise<string> {
    const ref = (await scratch().db('oauth_clients').where({ site_id: admin.server.siteA.id, client_id: application.clientId }).first()) as { id: number };
    const test = testClientOf(application, secret);
    test.client = { ...test.client, ref: ref.id };
    const member = await makeUser(scratch().db, admin.server.siteA, ['student'], 'Mia Member');
    const grant = await issueCode(scratch().db, admin.server.siteA, test, member, 'openid profile account:read');
    const body = (await (await exchangeCode(await discover(admin.origin), test, grant)).json()) as { access_token?: string; error_description?: string };
    if (!body.access_token) throw new Error(`no token: ${body.error_description ?? ''}`);
    return body.access_token;
  }

  describe('while the MCP connections beta is off', () => {
    it('answers every OAuth-applications operation with 409 mcp_connections_disabled (after auth, before lookups)', async () => {
      const answers = [
        await admin.api.call('listOAuthApplications'),
        await admin.api.call('createOAuthApplication', { body: MEMBER_APP }),
        await admin.api.call('createOAuthApplication', { body: { nonsense: true } }),
        await admin.api.call('getOAuthApplication', { path: { clientId: 'no-such-client' } }),
        await admin.api.call('updateOAuthApplication', { path: { clientId: 'no-such-client' }, headers: { 'if-match': '"v1"' }, body: {} }),
        await admin.api.call('deleteOAuthApplication', { path: { clientId: 'no-such-client' } }),
        await admin.api.call('rotateOAuthApplicationSecret', { path: { clientId: 'no-such-client' } }),
        await admin.api.call('reviewOAuthApplication', { path: { clientId: 'no-such-client' } }),
      ];
      for (const answer of answers) {
        expect(answer.status, answer.text).to.equal(409);
        expect(answer.problem.code).to.equal('mcp_connections_disabled');
      }
      expect((await admin.api.call('listOAuthApplications', { token: null })).status).to.equal(401);
    });
  });

  describe('with the beta on', () => {
    before(() => setBeta(admin.api, true));

    it('creates a public application (checkbox unchecked): none + PKCE, no secret, with Location and ETag', async () => {
      const answer = await admin.api.call<ApplicationWithSecret>('createOAuthApplication', { body: MEMBER_APP });
      expect(answer.status).to.equal(201);
      expect(answer.body).to.include({ name: 'Study Buddy', audience: 'member', confidential: false, tokenEndpointAuthMethod: 'none', kind: 'operator_created', reviewed: true, vendorClientName: null });
      expect(answer.body).to.not.have.property('clientSecret');
      expect(answer.body.clientId).to.match(/^sg_/);
      expect(answer.headers.get('location')).to.equal(`${admin.origin}/api/admin/v1/oauth-applications/${encodeURIComponent(answer.body.clientId)}`);
      expect(answer.headers.get('etag')).to.equal('"v1"');
      const read = await admin.api.call<Application>('getOAuthApplication', { path: { clientId: answer.body.clientId } });
      expect(read.status).to.equal(200);
      expect(read.body).to.deep.equal({ ...answer.body });
      expect(read.headers.get('etag')).to.equal('"v1"');
    });

    it('creates a confidential application (checkbox checked): client_secret_post, the secret shown once', async () => {
      const created = await create({ ...MEMBER_APP, name: 'Server Side', confidential: true });
      expect(created).to.include({ confidential: true, tokenEndpointAuthMethod: 'client_secret_post' });
      expect(created.clientSecret).to.match(/^sgs_/);
      const read = await admin.api.call<Application>('getOAuthApplication', { path: { clientId: created.clientId } });
      expect(read.body).to.not.have.property('clientSecret');
      expect(read.text).to.not.contain(created.clientSecret ?? 'no secret');
      const stored = await findClientWithSecret(scratch().db, admin.server.siteA.id, created.clientId);
      expect(stored?.secretHash).to.match(/^scrypt\$/);
      // The secret works at the token endpoint; the same code cannot be exchanged without it.
      expect(await memberTokenFor(created, created.clientSecret ?? null)).to.match(/^sga_/);
    });

    it('refuses scopes of the other audience, bad redirect URIs and unknown members, with pointers', async () => {
      const answer = await admin.api.call('createOAuthApplication', {
        body: { ...MEMBER_APP, scopes: ['openid', 'school:read'], redirectUris: ['http://app.example/callback', 'https://ok.example/cb#frag'] },
      });
      expect(answer.status).to.equal(400);
      expect(answer.problem.code).to.equal('invalid_request');
      expect(answer.problem.errors).to.deep.include({ pointer: '/scopes/1', message: '"school:read" is not available to member clients' });
      expect((answer.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/redirectUris/0', '/redirectUris/1']);

      const operator = await admin.api.call('createOAuthApplication', { body: { ...MEMBER_APP, audience: 'operator', scopes: ['account:read'] } });
      expect(operator.status).to.equal(400);
      expect(operator.problem.errors).to.deep.include({ pointer: '/scopes/0', message: '"account:read" is not available to operator clients' });

      const schema = await admin.api.call('createOAuthApplication', { body: { ...MEMBER_APP, redirectUris: ['not a uri'], scopes: ['root'], clientId: 'mine', tokenEndpointAuthMethod: 'tls_client_auth' } });
      expect(schema.status).to.equal(400);
      const pointers = (schema.problem.errors ?? []).map((error) => error.pointer);
      expect(pointers).to.include.members(['/redirectUris/0', '/scopes/0', '/clientId', '/tokenEndpointAuthMethod']);

      const missing = await admin.api.call('createOAuthApplication', { body: { name: 'Half' } });
      expect(missing.status).to.equal(400);
      expect((missing.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/audience', '/confidential', '/scopes']);

      const merge = await admin.api.call('createOAuthApplication', { body: MEMBER_APP, contentType: 'application/merge-patch+json' });
      expect(merge.status).to.equal(415);
    });

    it('manages vendor platforms: public operator clients matched by client_name at the registration endpoint', async () => {
      const platform = await create({ name: 'Agent Platform', audience: 'operator', confidential: false, kind: 'vendor_platform', vendorClientName: 'AgentHub', redirectUris: ['https://agenthub.example/callback'], scopes: ['openid', 'courses:read'] });
      expect(platform).to.include({ kind: 'vendor_platform', vendorClientName: 'AgentHub', audience: 'operator' });
      const registered = await postForm(`${admin.origin}/api/oauth/register`, { client_name: 'agenthub' });
      expect(registered.status).to.equal(201);
      expect(registered.body.client_id).to.equal(platform.clientId);

      const taken = await admin.api.call('createOAuthApplication', { body: { ...MEMBER_APP, audience: 'operator', scopes: ['openid'], kind: 'vendor_platform', vendorClientName: ' AGENTHUB ' } });
      expect(taken.status).to.equal(409);
      expect(taken.problem.code).to.equal('vendor_client_name_taken');
      const rules = await admin.api.call('createOAuthApplication', { body: { ...MEMBER_APP, kind: 'vendor_platform', confidential: true } });
      expect(rules.status).to.equal(400);
      expect((rules.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/audience', '/confidential', '/vendorClientName']);
      const notVendor = await admin.api.call('createOAuthApplication', { body: { ...MEMBER_APP, vendorClientName: 'Nope' } });
      expect(notVendor.status).to.equal(400);
      expect(notVendor.problem.errors).to.deep.include({ pointer: '/vendorClientName', message: 'is only for a vendor_platform application' });

      const renamed = await admin.api.call<Application>('updateOAuthApplication', { path: { clientId: platform.clientId }, headers: { 'if-match': '"v1"' }, body: { vendorClientName: 'Agent Hub 2' } });
      expect(renamed.status).to.equal(200);
      expect(renamed.body.vendorClientName).to.equal('Agent Hub 2');
      expect((await postForm(`${admin.origin}/api/oauth/register`, { client_name: 'AgentHub' })).status).to.equal(400);
      expect((await postForm(`${admin.origin}/api/oauth/register`, { client_name: 'agent hub 2' })).body.client_id).to.equal(platform.clientId);

      expect((await admin.api.call('deleteOAuthApplication', { path: { clientId: platform.clientId } })).status).to.equal(204);
      const gone = await postForm(`${admin.origin}/api/oauth/register`, { client_name: 'Agent Hub 2' });
      expect(gone.status).to.equal(400);
      expect(gone.body.error).to.equal('invalid_client_metadata');
    });

    it('updates with a merge patch under If-Match (428 without, 412 when stale) and never changes the audience', async () => {
      const created = await create({ ...MEMBER_APP, name: 'Renamable' });
      const path = { clientId: created.clientId };
      expect((await admin.api.call('updateOAuthApplication', { path, body: { name: 'X' } })).status).to.equal(428);
      const updated = await admin.api.call<Application>('updateOAuthApplication', {
        path,
        headers: { 'if-match': '"v1"' },
        body: { name: 'Renamed', scopes: ['openid', 'account:read', 'account:write', 'openid'], redirectUris: ['https://renamed.example/cb', 'com.example.renamed:/cb'] },
        contentType: 'application/merge-patch+json',
      });
      // uniqueItems refuses the repeated scope before anything is written.
      expect(updated.status).to.equal(400);
      const applied = await admin.api.call<Application>('updateOAuthApplication', {
        path,
        headers: { 'if-match': '"v1"' },
        body: { name: 'Renamed', scopes: ['openid', 'account:read', 'account:write'], redirectUris: ['https://renamed.example/cb', 'com.example.renamed:/cb'] },
        contentType: 'application/merge-patch+json',
      });
      expect(applied.status, applied.text).to.equal(200);
      expect(applied.body).to.include({ name: 'Renamed', audience: 'member', confidential: false });
      expect(applied.body.scopes).to.deep.equal(['openid', 'account:read', 'account:write']);
      expect(applied.headers.get('etag')).to.equal('"v2"');
      const stale = await admin.api.call('updateOAuthApplication', { path, headers: { 'if-match': '"v1"' }, body: { name: 'Lost update' } });
      expect(stale.status).to.equal(412);
      const fixed = await admin.api.call('updateOAuthApplication', { path, headers: { 'if-match': '"v2"' }, body: { audience: 'operator', confidential: true } });
      expect(fixed.status).to.equal(400);
      expect((fixed.problem.errors ?? []).map((error) => error.pointer)).to.have.members(['/audience', '/confidential']);
      const wrongScopes = await admin.api.call('updateOAuthApplication', { path, headers: { 'if-match': '"v2"' }, body: { scopes: ['school:write'] } });
      expect(wrongScopes.status).to.equal(400);
      expect(wrongScopes.problem.errors).to.deep.include({ pointer: '/scopes/0', message: '"school:write" is not available to member clients' });
      expect((await admin.api.call<Application>('getOAuthApplication', { path })).body.name).to.equal('Renamed');
    });

    it('finds applications only at their own site: 404 for unknown ids and for another site’s clients', async () => {
      const unknown = await admin.api.call('getOAuthApplication', { path: { clientId: 'sg_missing' } });
      expect(unknown.status).to.equal(404);
      expect(unknown.problem.code).to.equal('not_found');
      const { client } = await createClient(scratch().db, admin.server.siteB.id, { name: 'B only', audience: 'member', confidential: false, scopes: ['openid'], redirectUris: [REDIRECT_URI] });
      for (const answer of [
        await admin.api.call('getOAuthApplication', { path: { clientId: client.clientId } }),
        await admin.api.call('deleteOAuthApplication', { path: { clientId: client.clientId } }),
        await admin.api.call('rotateOAuthApplicationSecret', { path: { clientId: client.clientId } }),
      ]) {
        expect(answer.status).to.equal(404);
      }
      const list = await admin.api.call<ApplicationList>('listOAuthApplications', { query: { limit: 100 } });
      expect(list.body.data.map((application) => application.clientId)).to.not.include(client.clientId);
      expect(await scratch().db('oauth_clients').where({ id: client.ref }).first()).to.not.equal(undefined);
    });

    it('rotates the secret of a confidential application only: the old secret stops working at once', async () => {
      const created = await create({ ...MEMBER_APP, name: 'Rotating', confidential: true });
      const oldSecret = created.clientSecret ?? '';
      const rotated = await admin.api.call<ApplicationWithSecret>('rotateOAuthApplicationSecret', { path: { clientId: created.clientId } });
      expect(rotated.status).to.equal(200);
      expect(rotated.body.clientSecret).to.match(/^sgs_/).and.not.equal(oldSecret);
      expect(rotated.headers.get('etag')).to.equal('"v2"');
      let refused: unknown;
      try {
        await memberTokenFor(created, oldSecret);
      } catch (error) {
        refused = error;
      }
      expect(String(refused)).to.match(/no token/);
      expect(await memberTokenFor(created, rotated.body.clientSecret ?? null)).to.match(/^sga_/);

      const publicApp = await create({ ...MEMBER_APP, name: 'No secret' });
      const notConfidential = await admin.api.call('rotateOAuthApplicationSecret', { path: { clientId: publicApp.clientId } });
      expect(notConfidential.status).to.equal(409);
      expect(notConfidential.problem.code).to.equal('application_not_confidential');
      const withBody = await admin.api.call('rotateOAuthApplicationSecret', { path: { clientId: created.clientId }, body: { please: true } });
      expect(withBody.status).to.equal(400);
      expect(withBody.problem.errors).to.deep.equal([{ pointer: '', message: 'must be empty' }]);
    });

    it('reviews Client ID Metadata Document applications, whose registration only their document changes', async () => {
      const clientId = 'https://tools.example.com/schoolgate/client.json';
      await createClient(scratch().db, admin.server.siteA.id, {
        clientId,
        name: 'Docs Tool',
        audience: 'operator',
        confidential: false,
        kind: 'metadata_document',
        reviewed: false,
        scopes: ['openid', 'courses:read', 'courses:write'],
        redirectUris: ['https://tools.example.com/callback'],
      });
      const path = { clientId };
      const read = await admin.api.call<Application>('getOAuthApplication', { path });
      expect(read.status).to.equal(200);
      expect(read.body).to.include({ kind: 'metadata_document', reviewed: false, clientId });
      const unreviewed = await admin.api.call<ApplicationList>('listOAuthApplications', { query: { reviewed: false } });
      expect(unreviewed.body.data.map((application) => application.clientId)).to.deep.equal([clientId]);

      const managed = await admin.api.call('updateOAuthApplication', { path, headers: { 'if-match': '"v1"' }, body: { scopes: ['openid'] } });
      expect(managed.status).to.equal(409);
      expect(managed.problem.code).to.equal('managed_by_metadata_document');

      const reviewed = await admin.api.call<Application>('reviewOAuthApplication', { path });
      expect(reviewed.status).to.equal(200);
      expect(reviewed.body.reviewed).to.equal(true);
      expect(reviewed.headers.get('etag')).to.equal('"v2"');
      const again = await admin.api.call<Application>('reviewOAuthApplication', { path });
      expect(again.status).to.equal(200);
      expect(again.headers.get('etag')).to.equal('"v2"');

      const other = await create({ ...MEMBER_APP, name: 'Not a document' });
      const refused = await admin.api.call('reviewOAuthApplication', { path: { clientId: other.clientId } });
      expect(refused.status).to.equal(409);
      expect(refused.problem.code).to.equal('application_not_metadata_document');
    });

    it('deletes an application and revokes its tokens: they stop working at userinfo at once', async () => {
      const created = await create({ ...MEMBER_APP, name: 'Short-lived' });
      const token = await memberTokenFor(created, null);
      const userinfo = () => fetch(`${admin.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
      expect((await userinfo()).status).to.equal(200);
      const deleted = await admin.api.call('deleteOAuthApplication', { path: { clientId: created.clientId } });
      expect(deleted.status).to.equal(204);
      expect(deleted.text).to.equal('');
      const after = await userinfo();
      expect(after.status).to.equal(401);
      expect(after.headers.get('www-authenticate')).to.contain('error="invalid_token"');
      expect((await admin.api.call('getOAuthApplication', { path: { clientId: created.clientId } })).status).to.equal(404);
      expect((await admin.api.call('deleteOAuthApplication', { path: { clientId: created.clientId } })).status).to.equal(404);
    });

    it('pages through the list with opaque cursors, filters and sorts, without repeats or gaps', async () => {
      for (const name of ['Zulu', 'alpha', 'Mike']) await create({ ...MEMBER_APP, name, confidential: name === 'Mike' });
      const all = await admin.api.call<ApplicationList>('listOAuthApplications', { query: { limit: 100 } });
      expect(all.status).to.equal(200);
      expect(all.body.nextCursor).to.equal(null);
      const total = all.body.data.length;
      expect(total).to.be.greaterThan(5);
      const created = all.body.data.map((application) => application.createdAt);
      expect([...created].sort().reverse()).to.deep.equal(created);

      for (const sort of ['-createdAt', 'name', '-name', 'updatedAt'] as const) {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const page: Awaited<ReturnType<typeof admin.api.call<ApplicationList>>> = await admin.api.call<ApplicationList>('listOAuthApplications', { query: { limit: 2, sort, ...(cursor === null ? {} : { cursor }) } });
          expect(page.status, page.text).to.equal(200);
          expect(page.body.data.length).to.be.at.most(2);
          seen.push(...page.body.data.map((application) => application.clientId));
          cursor = page.body.nextCursor;
        } while (cursor !== null);
        expect(seen, sort).to.have.length(total);
        expect(new Set(seen).size, sort).to.equal(total);
      }

      const publicOnes = await admin.api.call<ApplicationList>('listOAuthApplications', { query: { confidential: false, audience: 'member', kind: 'operator_created', limit: 100 } });
      expect(publicOnes.body.data.every((application) => !application.confidential && application.audience === 'member')).to.equal(true);
      expect(publicOnes.body.data.map((application) => application.name)).to.include.members(['Zulu', 'alpha']).and.not.include('Mike');

      const first = await admin.api.call<ApplicationList>('listOAuthApplications', { query: { limit: 1, sort: 'name' } });
      const cursor = first.body.nextCursor ?? '';
      const otherSort = await admin.api.call('listOAuthApplications', { query: { limit: 1, sort: '-name', cursor } });
      expect(otherSort.status).to.equal(400);
      expect(otherSort.problem.code).to.equal('invalid_cursor');
      const otherFilter = await admin.api.call('listOAuthApplications', { query: { limit: 1, sort: 'name', cursor, confidential: true } });
      expect(otherFilter.problem.code).to.equal('invalid_cursor');
      const garbage = await admin.api.call('listOAuthApplications', { query: { cursor: 'bm90IGEgY3Vyc29y' } });
      expect(garbage.status).to.equal(400);
      expect(garbage.problem.code).to.equal('invalid_cursor');
    });

    it('validates the query: ranges, enums, booleans and unknown parameters, by parameter name', async () => {
      const answer = await admin.api.call('listOAuthApplications', { query: { limit: 0, sort: 'random', confidential: 'maybe' }, rawQuery: 'color=red' });
      expect(answer.status).to.equal(400);
      const parameters = (answer.problem.errors ?? []).map((error) => error.parameter);
      expect(parameters).to.include.members(['limit', 'sort', 'confidential', 'color']);
      expect(answer.problem.errors).to.deep.include({ parameter: 'color', message: 'is not a parameter of this operation' });
      const big = await admin.api.call('listOAuthApplications', { query: { limit: 101 } });
      expect(big.problem.errors).to.deep.include({ parameter: 'limit', message: 'must be <= 100' });
    });

    it('hides the applications again when the beta is turned off, and deletes or revokes nothing', async () => {
      const created = await create({ ...MEMBER_APP, name: 'Survivor' });
      const token = await memberTokenFor(created, null);
      await setBeta(admin.api, false);
      expect((await admin.api.call('getOAuthApplication', { path: { clientId: created.clientId } })).status).to.equal(409);
      expect((await fetch(`${admin.origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status).to.equal(200);
      await setBeta(admin.api, true);
      expect((await admin.api.call('getOAuthApplication', { path: { clientId: created.clientId } })).status).to.equal(200);
    });
  });
});
