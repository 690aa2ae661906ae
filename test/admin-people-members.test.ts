import { expect } from 'chai';
import { grantRole } from '../src/accounts/roles.js';
import { createUser } from '../src/accounts/users.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { type AdminApi, issueToken, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser } from './support/oauth-fixtures.js';

type Member = Schemas['Member'];
type MemberList = Schemas['MemberList'];

const PEOPLE_SCOPES = ['members:read', 'members:write', 'students:read', 'students:write', 'subscriptions:read', 'subscriptions:write'];

describeEachDatabase('admin API: members and roles', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: PEOPLE_SCOPES, roles: ['owner', 'operator'] });

  async function add(body: Record<string, unknown>, client: AdminApi = admin.api): Promise<{ member: Member; etag: string }> {
    const answer = await client.call<Member>('createMember', { body });
    expect(answer.status, answer.text).to.equal(201);
    return { member: answer.body, etag: answer.headers.get('etag') ?? '' };
  }

  async function read(userId: number, client: AdminApi = admin.api): Promise<{ member: Member; etag: string }> {
    const answer = await client.call<Member>('getMember', { path: { userId: String(userId) } });
    expect(answer.status, answer.text).to.equal(200);
    return { member: answer.body, etag: answer.headers.get('etag') ?? '' };
  }

  describe('adding members', () => {
    it('creates a new account without a password, with Location and ETag, roles in the fixed order', async () => {
      const answer = await admin.api.call<Member>('createMember', { body: { email: 'New.Person@Example.com', name: 'New Person', roles: ['student', 'lecturer'] } });
      expect(answer.status, answer.text).to.equal(201);
      expect(answer.body).to.include({ email: 'new.person@example.com', name: 'New Person', avatarUrl: null });
      expect(answer.body.roles).to.deep.equal(['lecturer', 'student']);
      expect(answer.body.createdAt).to.equal(answer.body.joinedAt);
      expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/members/${answer.body.id}`);
      expect(answer.headers.get('etag')).to.match(/^"v1\.\d+"$/);
      const stored = (await scratch().db('users').where({ id: answer.body.id }).first('password_hash')) as { password_hash: string | null };
      expect(stored.password_hash).to.equal(null);
      const again = await read(answer.body.id);
      expect(again.member).to.deep.equal(answer.body);
      expect(again.etag).to.equal(answer.headers.get('etag'));
    });

    it("gives an existing account of another site the roles and this site's name for them, and changes nothing the other site shows", async () => {
      const elsewhere = await makeUser(scratch().db, admin.server.siteB, ['operator', 'lecturer'], 'Shared Person');
      const atB = await read(elsewhere.id, admin.apiB);
      const { member } = await add({ email: elsewhere.email.toUpperCase(), name: 'Named By Site A', roles: ['student'] });
      expect(member).to.include({ id: elsewhere.id, name: 'Named By Site A', email: elsewhere.email });
      expect(member.roles).to.deep.equal(['student']);
      expect(await read(elsewhere.id, admin.apiB)).to.deep.equal(atB);
      expect(atB.member).to.include({ name: 'Shared Person' });
      expect(atB.member.roles).to.deep.equal(['operator', 'lecturer']);
      const twice = await admin.api.call('createMember', { body: { email: elsewhere.email, name: 'x', roles: ['staff'] } });
      expect(twice.status).to.equal(409);
      expect(twice.problem.code).to.equal('member_exists');
    });

    it('refuses bad bodies with pointers: email, empty or unknown roles, unknown members', async () => {
      const answer = await admin.api.call('createMember', { body: { email: 'not-an-email', name: '', roles: [], color: 'red' } });
      expect(answer.status).to.equal(400);
      expect(answer.problem.code).to.equal('invalid_request');
      expect((answer.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/email', '/name', '/roles', '/color']);
      const unknownRole = await admin.api.call('createMember', { body: { email: 'a@example.com', name: 'A', roles: ['admin'] } });
      expect(unknownRole.status).to.equal(400);
      expect((unknownRole.problem.errors ?? []).map((error) => error.pointer)).to.include('/roles/0');
    });

    it('lets only an owner grant the owner role (409 owner_role_restricted)', async () => {
      const operator = await issueToken(scratch().db, admin.server.siteA, { scopes: PEOPLE_SCOPES, roles: ['operator'] });
      const asOperator = admin.api.withToken(operator.token);
      const answer = await asOperator.call('createMember', { body: { email: 'would-be-owner@example.com', name: 'W', roles: ['owner'] } });
      expect(answer.status).to.equal(409);
      expect(answer.problem.code).to.equal('owner_role_restricted');
      expect(await scratch().db('users').where({ email: 'would-be-owner@example.com' }).first()).to.equal(undefined);
      const { member, etag } = await add({ email: 'plain-staff@example.com', name: 'Plain Staff', roles: ['staff'] });
      const promote = await asOperator.call('updateMember', { path: { userId: String(member.id) }, headers: { 'if-match': etag }, body: { roles: ['owner'] } });
      expect(promote.status).to.equal(409);
      expect(promote.problem.code).to.equal('owner_role_restricted');
    });
  });

  describe('reading and listing', () => {
    const names = ['Pager Delta', 'pager alpha', 'Pager Charlie', 'PAGER bravo', 'Pager Echo'];
    const ids: number[] = [];
    before(async () => {
      for (const [index, name] of names.entries()) {
        const { member } = await add({ email: `pager.${index}@example.com`, name, roles: index % 2 === 0 ? ['student'] : ['lecturer', 'student'] });
        ids.push(member.id);
      }
    });

    it('pages through every member once, newest first by default, and refuses foreign cursors', async () => {
      const seen: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const answer = await admin.api.call<MemberList>('listMembers', { query: { limit: 2, q: 'pager', ...(cursor ? { cursor } : {}) } });
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.body.data.length).to.be.at.most(2);
        seen.push(...answer.body.data.map((member) => member.id));
        cursor = answer.body.nextCursor ?? undefined;
        pages += 1;
      } while (cursor);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal([...ids].reverse());
      const first = await admin.api.call<MemberList>('listMembers', { query: { limit: 2, q: 'pager' } });
      const withOtherFilter = await admin.api.call('listMembers', { query: { limit: 2, q: 'pager', role: 'lecturer', cursor: first.body.nextCursor ?? '' } });
      expect(withOtherFilter.status).to.equal(400);
      expect(withOtherFilter.problem.code).to.equal('invalid_cursor');
      const garbage = await admin.api.call('listMembers', { query: { cursor: 'not-a-cursor' } });
      expect(garbage.problem.code).to.equal('invalid_cursor');
    });

    it('filters by role and by a case-insensitive search of name and email; wildcards are literal', async () => {
      const lecturers = await admin.api.call<MemberList>('listMembers', { query: { q: 'PAGER', role: 'lecturer' } });
      expect(lecturers.body.data.map((member) => member.id)).to.have.members([ids[1], ids[3]]);
      for (const member of lecturers.body.data) expect(member.roles).to.include('lecturer');
      const byEmail = await admin.api.call<MemberList>('listMembers', { query: { q: 'PAGER.2@EXAMPLE' } });
      expect(byEmail.body.data.map((member) => member.id)).to.deep.equal([ids[2]]);
      const wildcard = await admin.api.call<MemberList>('listMembers', { query: { q: 'pager%' } });
      expect(wildcard.body.data).to.deep.equal([]);
      const underscore = await admin.api.call<MemberList>('listMembers', { query: { q: 'pager_' } });
      expect(underscore.body.data).to.deep.equal([]);
    });

    it('sorts by name, email and joinedAt in both directions', async () => {
      const byName = await admin.api.call<MemberList>('listMembers', { query: { q: 'pager', sort: 'name', limit: 3 } });
      const rest = await admin.api.call<MemberList>('listMembers', { query: { q: 'pager', sort: 'name', limit: 3, cursor: byName.body.nextCursor ?? '' } });
      const sortedNames = [...byName.body.data, ...rest.body.data].map((member) => member.name.toLowerCase());
      expect(sortedNames).to.deep.equal(['pager alpha', 'pager bravo', 'pager charlie', 'pager delta', 'pager echo']);
      const byEmail = await admin.api.call<MemberList>('listMembers', { query: { q: 'pager', sort: '-email' } });
      expect(byEmail.body.data.map((member) => member.email)).to.deep.equal([4, 3, 2, 1, 0].map((index) => `pager.${index}@example.com`));
      const joined = await admin.api.call<MemberList>('listMembers', { query: { q: 'pager', sort: 'joinedAt' } });
      expect(joined.body.data.map((member) => member.id)).to.deep.equal(ids);
      const unknownSort = await admin.api.call('listMembers', { query: { sort: 'age' } });
      expect(unknownSort.status).to.equal(400);
    });

    it("answers 404 for accounts without a role here, and for site A's members at site B", async () => {
      const stranger = await createUser(scratch().db, { email: 'stranger@example.com', name: 'Stranger' });
      expect((await admin.api.call('getMember', { path: { userId: String(stranger.id) } })).status).to.equal(404);
      const atB = await admin.apiB.call('getMember', { path: { userId: String(ids[0]) } });
      expect(atB.status).to.equal(404);
      expect(atB.problem.code).to.equal('not_found');
      expect((await admin.apiB.call('deleteMember', { path: { userId: String(ids[0]) } })).status).to.equal(404);
      const list = await admin.apiB.call<MemberList>('listMembers', { query: { q: 'pager' } });
      expect(list.body.data).to.deep.equal([]);
    });

    it('answers 403 insufficient_scope to a token without the members scopes', async () => {
      const schoolOnly = await issueToken(scratch().db, admin.server.siteA, { scopes: ['school:read'] });
      const answer = await admin.api.withToken(schoolOnly.token).call('listMembers');
      expect(answer.status).to.equal(403);
      expect(answer.problem.code).to.equal('insufficient_scope');
      expect(answer.headers.get('www-authenticate')).to.contain('scope="members:read"');
      const readOnly = await issueToken(scratch().db, admin.server.siteA, { scopes: ['members:read'] });
      const write = await admin.api.withToken(readOnly.token).call('deleteMember', { path: { userId: String(ids[0]) } });
      expect(write.status).to.equal(403);
      expect(write.headers.get('www-authenticate')).to.contain('scope="members:write"');
    });
  });

  describe('changing roles', () => {
    it('replaces the role set with If-Match: 428 without, 412 when stale, a new ETag after', async () => {
      const { member, etag } = await add({ email: 'roles@example.com', name: 'Role Player', roles: ['student'] });
      const path = { userId: String(member.id) };
      const missing = await admin.api.call('updateMember', { path, body: { roles: ['lecturer'] } });
      expect(missing.status).to.equal(428);
      const changed = await admin.api.call<Member>('updateMember', { path, headers: { 'if-match': etag }, body: { roles: ['lecturer', 'staff'] } });
      expect(changed.status, changed.text).to.equal(200);
      expect(changed.body.roles).to.deep.equal(['staff', 'lecturer']);
      const newEtag = changed.headers.get('etag') ?? '';
      expect(newEtag).to.not.equal(etag);
      const stale = await admin.api.call('updateMember', { path, headers: { 'if-match': etag }, body: { roles: ['student'] } });
      expect(stale.status).to.equal(412);
      expect(stale.problem.code).to.equal('precondition_failed');
      const foreign = await admin.api.call('updateMember', { path, headers: { 'if-match': '"v2"' }, body: { roles: ['student'] } });
      expect(foreign.status).to.equal(412);
      const merge = await admin.api.call<Member>('updateMember', { path, headers: { 'if-match': newEtag }, body: {}, contentType: 'application/merge-patch+json' });
      expect(merge.status).to.equal(200);
      expect(merge.headers.get('etag')).to.equal(newEtag);
      expect(merge.body.roles).to.deep.equal(['staff', 'lecturer']);
      const empty = await admin.api.call('updateMember', { path, headers: { 'if-match': newEtag }, body: { roles: [] } });
      expect(empty.status).to.equal(400);
      expect((empty.problem.errors ?? []).map((error) => error.pointer)).to.include('/roles');
      const readOnly = await admin.api.call('updateMember', { path, headers: { 'if-match': newEtag }, body: { name: 'Other' } });
      expect(readOnly.status).to.equal(400);
      expect((readOnly.problem.errors ?? []).map((error) => error.pointer)).to.include('/name');
    });

    it('lets exactly one of two concurrent changes from one ETag win', async () => {
      const { member, etag } = await add({ email: 'race@example.com', name: 'Racer', roles: ['student'] });
      const path = { userId: String(member.id) };
      const answers = await Promise.all([
        admin.api.call('updateMember', { path, headers: { 'if-match': etag }, body: { roles: ['lecturer'] } }),
        admin.api.call('updateMember', { path, headers: { 'if-match': etag }, body: { roles: ['staff'] } }),
      ]);
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 412]);
      const winner = answers.find((answer) => answer.status === 200);
      const { member: after, etag: afterEtag } = await read(member.id);
      expect(after.roles).to.deep.equal((winner?.body as Member).roles);
      expect(afterEtag).to.equal(winner?.headers.get('etag'));
    });

    it('moves the ETag when the roles change elsewhere (CLI grant), the account changes or the import renames the member here', async () => {
      const { member, etag } = await add({ email: 'elsewhere@example.com', name: 'Changed Elsewhere', roles: ['student'] });
      await grantRole(scratch().db, admin.server.siteA.id, member.id, 'lecturer');
      const afterGrant = await read(member.id);
      expect(afterGrant.etag).to.not.equal(etag);
      expect(afterGrant.member.roles).to.deep.equal(['lecturer', 'student']);
      expect((await admin.api.call('updateMember', { path: { userId: String(member.id) }, headers: { 'if-match': etag }, body: { roles: ['student'] } })).status).to.equal(412);
      await scratch().db('users').where({ id: member.id }).update({ updated_at: new Date(Date.now() + 5000) });
      const afterAccount = await read(member.id);
      expect(afterAccount.etag).to.not.equal(afterGrant.etag);
      expect((await admin.api.call('updateMember', { path: { userId: String(member.id) }, headers: { 'if-match': afterGrant.etag }, body: { roles: ['student'] } })).status).to.equal(412);
      const site = { origin: admin.server.siteA.origin, name: admin.server.siteA.name };
      await importSiteDocument(scratch().db, { formatVersion: 1, site, users: [{ email: member.email, name: 'Renamed By Import', roles: ['lecturer', 'student'] }] });
      const afterRename = await read(member.id);
      expect(afterRename.member.name).to.equal('Renamed By Import');
      expect(afterRename.etag).to.not.equal(afterAccount.etag);
      expect((await admin.api.call('updateMember', { path: { userId: String(member.id) }, headers: { 'if-match': afterAccount.etag }, body: { roles: ['student'] } })).status).to.equal(412);
      expect((await admin.api.call('updateMember', { path: { userId: String(member.id) }, headers: { 'if-match': afterRename.etag }, body: { roles: ['student'] } })).status).to.equal(200);
    });

    it('refuses to take away the last owner (409 last_owner) and the caller’s own operator access (409 cannot_remove_self)', async () => {
      const self = await read(admin.operator.id);
      const lastOwner = await admin.api.call('updateMember', { path: { userId: String(admin.operator.id) }, headers: { 'if-match': self.etag }, body: { roles: ['operator'] } });
      expect(lastOwner.status).to.equal(409);
      expect(lastOwner.problem.code).to.equal('last_owner');
      const selfRemoval = await admin.api.call('updateMember', { path: { userId: String(admin.operator.id) }, headers: { 'if-match': self.etag }, body: { roles: ['student'] } });
      expect(selfRemoval.status).to.equal(409);
      expect(selfRemoval.problem.code).to.equal('cannot_remove_self');
      expect((await read(admin.operator.id)).etag).to.equal(self.etag);
      const deleteSelf = await admin.api.call('deleteMember', { path: { userId: String(admin.operator.id) } });
      expect(deleteSelf.status).to.equal(409);
      expect(deleteSelf.problem.code).to.equal('cannot_remove_self');
      // Another owner may be removed while one is left.
      const { member: second } = await add({ email: 'second.owner@example.com', name: 'Second Owner', roles: ['owner'] });
      const removeSecond = await admin.api.call('deleteMember', { path: { userId: String(second.id) } });
      expect(removeSecond.status).to.equal(204);
      const lastAgain = await admin.api.call('deleteMember', { path: { userId: String(admin.operator.id) } });
      expect(lastAgain.problem.code).to.equal('cannot_remove_self');
    });

    it('keeps an owner when two owners are taken away at the same time', async () => {
      const { member: other } = await add({ email: 'co.owner@example.com', name: 'Co Owner', roles: ['owner'] }, admin.apiB);
      const selfEtag = (await read(admin.operatorB.id, admin.apiB)).etag;
      const otherEtag = (await read(other.id, admin.apiB)).etag;
      const answers = await Promise.all([
        admin.apiB.call('updateMember', { path: { userId: String(admin.operatorB.id) }, headers: { 'if-match': selfEtag }, body: { roles: ['operator'] } }),
        admin.apiB.call('updateMember', { path: { userId: String(other.id) }, headers: { 'if-match': otherEtag }, body: { roles: ['student'] } }),
      ]);
      // Whichever runs second is refused: as the last owner, or (when the caller's own demotion ran first) because the
      // caller is no longer an owner.
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 409]);
      expect(answers.find((answer) => answer.status === 409)?.problem.code).to.be.oneOf(['last_owner', 'owner_role_restricted']);
      const owners = await scratch().db('site_roles').where({ site_id: admin.server.siteB.id, role: 'owner' }).count({ n: '*' });
      expect(Number(owners[0]?.n)).to.equal(1);
    });
  });

  describe('removing members', () => {
    it('refuses while the member has active access, then removes every role here and keeps the account', async () => {
      const { member } = await add({ email: 'leaver@example.com', name: 'Leaver', roles: ['student', 'lecturer'] });
      const now = new Date();
      const [courseId] = await scratch().db('courses').insert({ site_id: admin.server.siteA.id, slug: `leaver-${Date.now()}`, title: 'C', status: 'published', version: 1, created_at: now, updated_at: now });
      const [planId] = await scratch().db('membership_plans').insert({ site_id: admin.server.siteA.id, name: 'P', price_amount: 100, price_currency: 'USD', billing_interval: 'month', active: true, version: 1, created_at: now, updated_at: now });
      const [enrollmentId] = await scratch().db('enrollments').insert({ site_id: admin.server.siteA.id, course_id: Number(courseId), user_id: member.id, enrolled_at: now, expires_at: new Date(Date.now() + 86400000), has_lifetime_access: false, source: 'grant', version: 1, created_at: now, updated_at: now });
      const path = { userId: String(member.id) };
      const refused = await admin.api.call('deleteMember', { path });
      expect(refused.status).to.equal(409);
      expect(refused.problem.code).to.equal('member_has_active_access');
      expect(refused.problem.detail).to.match(/enrollments/);
      await scratch().db('enrollments').where({ id: Number(enrollmentId) }).update({ expires_at: new Date(Date.now() - 1000) });
      const [subscriptionId] = await scratch().db('subscriptions').insert({ site_id: admin.server.siteA.id, plan_id: Number(planId), user_id: member.id, state: 'past_due', started_at: now, current_period_start: now, current_period_end: new Date(Date.now() + 86400000), version: 1, created_at: now, updated_at: now });
      expect((await admin.api.call('deleteMember', { path })).problem.code).to.equal('member_has_active_access');
      await scratch().db('subscriptions').where({ id: Number(subscriptionId) }).update({ state: 'canceled' });
      const before = await read(member.id);
      const removed = await admin.api.call('deleteMember', { path });
      expect(removed.status, removed.text).to.equal(204);
      expect((await admin.api.call('getMember', { path })).status).to.equal(404);
      expect(await scratch().db('users').where({ id: member.id }).first('id')).to.not.equal(undefined);
      expect(await scratch().db('enrollments').where({ id: Number(enrollmentId) }).first('id')).to.not.equal(undefined);
      expect((await admin.api.call('deleteMember', { path })).status).to.equal(404);
      expect((await admin.api.call('updateMember', { path, headers: { 'if-match': before.etag }, body: { roles: ['student'] } })).status).to.equal(404);
      // Added again: the same account, a new ETag (the old one never matches again).
      const { member: back, etag } = await add({ email: 'leaver@example.com', name: 'ignored', roles: ['student'] });
      expect(back.id).to.equal(member.id);
      expect(etag).to.not.equal(before.etag);
    });
  });
});
