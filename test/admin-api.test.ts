import { expect } from 'chai';
import { memberToken } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';
import { AdminApi, issueToken, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { getSite } from '../src/sites/sites.js';

type School = Schemas['School'];
type McpConnections = Schemas['McpConnections'];

describeEachDatabase('admin API: authentication, school settings, MCP connections', (scratch) => {
  const admin = useAdminApi(scratch, { siteB: false });

  describe('authentication and scopes', () => {
    it('answers 401 invalid_token without a token, with a challenge that has no error code (RFC 6750 3.1)', async () => {
      const answer = await admin.api.call('getSchool', { token: null });
      expect(answer.status).to.equal(401);
      expect(answer.problem).to.include({ code: 'invalid_token', status: 401, type: 'urn:schoolgate:problem:invalid_token', instance: '/api/admin/v1/school' });
      const challenge = answer.headers.get('www-authenticate') ?? '';
      expect(challenge).to.match(/^Bearer /);
      expect(challenge).to.contain(`resource_metadata="${admin.origin}/.well-known/oauth-protected-resource"`);
      expect(challenge).to.not.contain('error=');
    });

    it('answers 401 invalid_token with error="invalid_token" for malformed and unknown tokens', async () => {
      for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer not a token']) {
        const answer = await admin.api.call('getSchool', { token: null, headers: { authorization } });
        expect(answer.status, authorization).to.equal(401);
        expect(answer.headers.get('www-authenticate')).to.contain('error="invalid_token"');
      }
      const unknown = await admin.api.call('getSchool', { token: 'sga_unknown-token' });
      expect(unknown.status).to.equal(401);
      expect(unknown.problem.code).to.equal('invalid_token');
      expect(unknown.headers.get('www-authenticate')).to.contain('error="invalid_token"');
    });

    it('answers 401 before anything else: validation, unknown applications and the beta gate', async () => {
      const patch = await admin.api.call('updateSchool', { token: null, body: { nope: 1 } });
      expect(patch.status).to.equal(401);
      const application = await admin.api.call('getOAuthApplication', { token: null, path: { clientId: 'nobody' } });
      expect(application.status).to.equal(401);
    });

    it('refuses a member token with 403 insufficient_scope: member tokens never reach the admin API', async () => {
      const student = await makeUser(scratch().db, admin.server.siteA, ['student'], 'Stu Dent');
      const token = await memberToken(scratch().db, admin.server.siteA, student);
      const answer = await admin.api.call('getSchool', { token });
      expect(answer.status).to.equal(403);
      expect(answer.problem.code).to.equal('insufficient_scope');
      const challenge = answer.headers.get('www-authenticate') ?? '';
      expect(challenge).to.contain('error="insufficient_scope"').and.contain('scope="school:read"').and.contain('resource_metadata=');
      expect(answer.problem.detail).to.match(/member tokens/);
    });

    it('refuses an operator-client token whose user is not (or no longer) an operator of the site with 403', async () => {
      const { token, user } = await issueToken(scratch().db, admin.server.siteA, { roles: ['operator'] });
      expect((await admin.api.call('getSchool', { token })).status).to.equal(200);
      // The role is taken away and a student role given instead: the token is still live, but not for the admin API.
      await scratch().db('site_roles').where({ site_id: admin.server.siteA.id, user_id: user.id }).delete();
      await scratch().db('site_roles').insert({ site_id: admin.server.siteA.id, user_id: user.id, role: 'student', created_at: new Date() });
      const answer = await admin.api.call('getSchool', { token });
      expect(answer.status).to.equal(403);
      expect(answer.problem.code).to.equal('insufficient_scope');
      expect(answer.problem.detail).to.match(/not an owner, operator or staff/);
    });

    it('accepts owner and staff as well as operator', async () => {
      for (const role of ['owner', 'staff'] as const) {
        const { token } = await issueToken(scratch().db, admin.server.siteA, { roles: [role] });
        expect((await admin.api.call('getSchool', { token })).status, role).to.equal(200);
      }
    });

    it("answers 403 with the operation's scope when the token lacks it (read-only token writing)", async () => {
      const { token } = await issueToken(scratch().db, admin.server.siteA, { scopes: ['openid', 'school:read'] });
      expect((await admin.api.call('getSchool', { token })).status).to.equal(200);
      const etag = (await admin.api.call('getSchool', { token })).headers.get('etag') ?? '';
      const answer = await admin.api.call('updateSchool', { token, headers: { 'if-match': etag }, body: { name: 'Nope' } });
      expect(answer.status).to.equal(403);
      expect(answer.headers.get('www-authenticate')).to.contain('scope="school:write"');
      const other = await issueToken(scratch().db, admin.server.siteA, { scopes: ['courses:read'] });
      const refused = await admin.api.call('getSchool', { token: other.token });
      expect(refused.status).to.equal(403);
      expect(refused.headers.get('www-authenticate')).to.contain('scope="school:read"');
    });

    it("isolates sites: site A's operator token is refused at site B as issued for another origin (401)", async () => {
      const atB = await AdminApi.connect(admin.server.siteB.origin, admin.api.token);
      const answer = await atB.call('getSchool');
      expect(answer.status).to.equal(401);
      expect(answer.problem.code).to.equal('invalid_token');
      expect(answer.problem.detail).to.match(/different origin/);
      expect(answer.headers.get('www-authenticate')).to.contain(`resource_metadata="${admin.server.siteB.origin}/.well-known/oauth-protected-resource"`);
    });

    it('answers unknown admin paths with a 404 problem and known paths with another method with 405 and Allow', async () => {
      const unknown = await admin.api.request('GET', '/no-such-thing');
      expect(unknown.status).to.equal(404);
      expect(unknown.problem.code).to.equal('not_found');
      const outside = await admin.api.request('GET', '/../v2/school');
      expect(outside.status).to.equal(404);
      const method = await admin.api.request('PUT', '/school', { body: {} });
      expect(method.status).to.equal(405);
      expect(method.problem.code).to.equal('method_not_allowed');
      expect(method.headers.get('allow')).to.equal('GET, PATCH');
      const root = await fetch(`${admin.origin}/api/admin`);
      expect(root.status).to.equal(404);
      expect(root.headers.get('content-type')).to.match(/^application\/problem\+json/);
    });
  });

  describe('school settings', () => {
    it('reads the school of the origin with a strong ETag', async () => {
      const answer = await admin.api.call<School>('getSchool');
      expect(answer.status).to.equal(200);
      const site = await getSite(scratch().db, admin.server.siteA.id);
      expect(answer.body).to.include({ id: site.id, origin: admin.origin, subdomain: site.subdomain, name: site.name, timezone: 'UTC', defaultCurrency: 'USD' });
      expect(answer.headers.get('etag')).to.equal(`"v${site.version}"`);
      expect(answer.headers.get('cache-control')).to.equal('no-store');
    });

    it('needs If-Match on PATCH: 428 without it, 412 with a stale one, 400 for a weak or wildcard tag', async () => {
      const missing = await admin.api.call('updateSchool', { body: { name: 'X' } });
      expect(missing.status).to.equal(428);
      expect(missing.problem.code).to.equal('precondition_required');
      const stale = await admin.api.call('updateSchool', { headers: { 'if-match': '"v999"' }, body: { name: 'X' } });
      expect(stale.status).to.equal(412);
      expect(stale.problem.code).to.equal('precondition_failed');
      const foreign = await admin.api.call('updateSchool', { headers: { 'if-match': '"abc"' }, body: { name: 'X' } });
      expect(foreign.status).to.equal(412);
      for (const tag of ['W/"v1"', '*', '"v1", "v2"']) {
        const refused = await admin.api.call('updateSchool', { headers: { 'if-match': tag }, body: { name: 'X' } });
        expect(refused.status, tag).to.equal(400);
        expect(refused.problem.errors).to.deep.include({ parameter: 'If-Match', message: 'must match pattern "^"[\\x21\\x23-\\x7E]+"$"' });
      }
      expect((await admin.api.call<School>('getSchool')).body.name).to.not.equal('X');
    });

    it('applies a merge patch (application/merge-patch+json or application/json) and moves the ETag', async () => {
      const before = await admin.api.call<School>('getSchool');
      const etag = before.headers.get('etag') ?? '';
      const patched = await admin.api.call<School>('updateSchool', {
        headers: { 'if-match': etag },
        body: { name: '  Alpha Academy  ', description: 'Courses for curious people', timezone: 'asia/taipei', defaultCurrency: 'TWD', contactEmail: 'office@alpha.example' },
        contentType: 'application/merge-patch+json',
      });
      expect(patched.status).to.equal(200);
      expect(patched.body).to.include({ name: 'Alpha Academy', description: 'Courses for curious people', timezone: 'Asia/Taipei', defaultCurrency: 'TWD', contactEmail: 'office@alpha.example' });
      const next = patched.headers.get('etag') ?? '';
      expect(next).to.not.equal(etag);
      // The old ETag is stale now: a second operator working from it gets 412, not a silent overwrite.
      const lost = await admin.api.call('updateSchool', { headers: { 'if-match': etag }, body: { name: 'Overwritten' } });
      expect(lost.status).to.equal(412);
      const cleared = await admin.api.call<School>('updateSchool', { headers: { 'if-match': next }, body: { description: null, contactEmail: null } });
      expect(cleared.status).to.equal(200);
      expect(cleared.body).to.include({ name: 'Alpha Academy', description: null, contactEmail: null });
      const empty = await admin.api.call<School>('updateSchool', { headers: { 'if-match': cleared.headers.get('etag') ?? '' }, body: {} });
      expect(empty.status).to.equal(200);
      expect(empty.headers.get('etag')).to.equal(cleared.headers.get('etag'));
      // Site B is another school: untouched.
      expect((await getSite(scratch().db, admin.server.siteB.id)).name).to.equal(admin.server.siteB.name);
    });

    it('lets exactly one of two concurrent changes from the same ETag win; the other gets 412', async () => {
      const etag = (await admin.api.call('getSchool')).headers.get('etag') ?? '';
      const answers = await Promise.all(
        ['Concurrent One', 'Concurrent Two', 'Concurrent Three'].map((name) => admin.api.call<School>('updateSchool', { headers: { 'if-match': etag }, body: { name } })),
      );
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 412, 412]);
      const winner = answers.find((answer) => answer.status === 200);
      expect((await admin.api.call<School>('getSchool')).body.name).to.equal(winner?.body.name);
    });

    it('refuses invalid values with JSON pointers, unknown and read-only members included', async () => {
      const etag = (await admin.api.call('getSchool')).headers.get('etag') ?? '';
      const answer = await admin.api.call('updateSchool', {
        headers: { 'if-match': etag },
        body: { name: '', description: 5, contactEmail: 'not-an-email', defaultCurrency: 'usd', id: 7, origin: 'https://elsewhere.example', color: 'red' },
      });
      expect(answer.status).to.equal(400);
      expect(answer.problem.code).to.equal('invalid_request');
      const pointers = (answer.problem.errors ?? []).map((error) => error.pointer);
      expect(pointers).to.include.members(['/name', '/description', '/contactEmail', '/defaultCurrency', '/id', '/origin', '/color']);
      expect(answer.problem.errors).to.deep.include({ pointer: '/description', message: 'must be string or null' });
      expect(answer.problem.errors).to.deep.include({ pointer: '/contactEmail', message: 'must match format "email"' });
      expect(answer.problem.errors).to.deep.include({ pointer: '/color', message: 'is not a known member; unknown members are refused' });

      const rules = await admin.api.call('updateSchool', { headers: { 'if-match': etag }, body: { timezone: 'Mars/Olympus_Mons', defaultCurrency: 'ZZZ', name: '   ' } });
      expect(rules.status).to.equal(400);
      expect((rules.problem.errors ?? []).map((error) => error.pointer)).to.have.members(['/timezone', '/defaultCurrency', '/name']);
    });

    it('refuses bodies that are not JSON objects: 415 for other media types, 400 for malformed JSON', async () => {
      const etag = (await admin.api.call('getSchool')).headers.get('etag') ?? '';
      const text = await admin.api.call('updateSchool', { headers: { 'if-match': etag }, rawBody: 'name=x', contentType: 'application/x-www-form-urlencoded' });
      expect(text.status).to.equal(415);
      expect(text.problem.code).to.equal('unsupported_media_type');
      expect(text.headers.get('accept-patch')).to.equal('application/merge-patch+json, application/json');
      const malformed = await admin.api.call('updateSchool', { headers: { 'if-match': etag }, rawBody: '{"name": ', contentType: 'application/json' });
      expect(malformed.status).to.equal(400);
      expect(malformed.problem.errors?.[0]?.pointer).to.equal('');
      const array = await admin.api.call('updateSchool', { headers: { 'if-match': etag }, rawBody: '[1]', contentType: 'application/json' });
      expect(array.status).to.equal(400);
      expect(array.problem.errors).to.deep.include({ pointer: '', message: 'must be object' });
      const none = await admin.api.call('updateSchool', { headers: { 'if-match': etag } });
      expect(none.status).to.equal(400);
      expect(none.problem.errors).to.deep.include({ pointer: '', message: 'is required' });
    });
  });

  describe('MCP connections', () => {
    it('reads and switches the beta and the metadata-document policy, hosts normalised and sorted', async () => {
      const current = await admin.api.call<McpConnections>('getMcpConnections');
      expect(current.status).to.equal(200);
      expect(current.body).to.include({ betaEnabled: false, openRegistration: false });
      expect(current.body.metadataDocumentHosts).to.deep.equal([]);
      const updated = await admin.api.call<McpConnections>('updateMcpConnections', {
        headers: { 'if-match': current.headers.get('etag') ?? '' },
        body: { betaEnabled: true, metadataDocumentHosts: ['Tools.Example.com', 'agents.example.org'] },
        contentType: 'application/merge-patch+json',
      });
      expect(updated.status).to.equal(200);
      expect(updated.body).to.include({ betaEnabled: true, openRegistration: false });
      expect(updated.body.metadataDocumentHosts).to.deep.equal(['agents.example.org', 'tools.example.com']);
      const again = await admin.api.call<McpConnections>('getMcpConnections');
      expect(again.body).to.deep.equal(updated.body);
      expect(again.headers.get('etag')).to.equal(updated.headers.get('etag'));
      expect((await getSite(scratch().db, admin.server.siteB.id)).mcpConnectionsEnabled).to.equal(false);
    });

    it('shares the version of the site row with the school settings: a change to either makes both ETags stale', async () => {
      const school = await admin.api.call('getSchool');
      const connections = await admin.api.call('getMcpConnections');
      expect(school.headers.get('etag')).to.equal(connections.headers.get('etag'));
      const changed = await admin.api.call('updateMcpConnections', { headers: { 'if-match': connections.headers.get('etag') ?? '' }, body: { openRegistration: true } });
      expect(changed.status).to.equal(200);
      expect((await admin.api.call('updateSchool', { headers: { 'if-match': school.headers.get('etag') ?? '' }, body: { name: 'Stale' } })).status).to.equal(412);
    });

    it('refuses host names with schemes, ports or paths, with pointers to each', async () => {
      const etag = (await admin.api.call('getMcpConnections')).headers.get('etag') ?? '';
      const answer = await admin.api.call('updateMcpConnections', { headers: { 'if-match': etag }, body: { metadataDocumentHosts: ['ok.example', 'https://bad.example', 'bad.example:443'], betaEnabled: 'yes' } });
      expect(answer.status).to.equal(400);
      const pointers = (answer.problem.errors ?? []).map((error) => error.pointer);
      expect(pointers).to.include.members(['/metadataDocumentHosts/1', '/metadataDocumentHosts/2', '/betaEnabled']);
      const trailing = await admin.api.call('updateMcpConnections', { headers: { 'if-match': etag }, body: { metadataDocumentHosts: ['trailing.example.'] } });
      expect(trailing.status).to.equal(400);
      expect(trailing.problem.errors).to.deep.equal([{ pointer: '/metadataDocumentHosts/0', message: 'must be a DNS host name without scheme, port or path' }]);
    });
  });
});
