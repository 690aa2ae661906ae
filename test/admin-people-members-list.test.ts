import { expect } from 'chai';
import type { Knex } from 'knex';
import { grantRole, recordMembershipChange } from '../src/accounts/roles.js';
import { createUser } from '../src/accounts/users.js';
import * as memberListKeys from '../src/db/migrations/0021_member_list_keys.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { listMembers, revokeRole } from '../src/people/members.js';
import type { Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';

type Member = Schemas['Member'];
type MemberList = Schemas['MemberList'];

const SORTS = ['joinedAt', '-joinedAt', 'name', '-name', 'email', '-email'] as const;

/**
 * The member list reads the keys on site_memberships (joined_at, name_key, email_key), so these tests compare every
 * page against the members worked out from site_roles, site_memberships.name and users directly.
 */
describeEachDatabase('admin API: member list pages, sort keys and search', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: ['members:read', 'members:write'], roles: ['owner', 'operator'] });
  const siteId = () => admin.server.siteA.id;
  const base = Date.UTC(2025, 2, 1);

  /** The site's members as site_roles, the site's names and the accounts say, in `sort`'s order (ties by id). */
  async function expectedOrder(sort: (typeof SORTS)[number], role?: string): Promise<number[]> {
    const db = scratch().db;
    const roles: Array<{ user_id: number; role: string; created_at: unknown }> = await db('site_roles').where('site_id', siteId()).select('user_id', 'role', 'created_at');
    const members = new Map<number, { joined: number; roles: string[] }>();
    for (const row of roles) {
      const id = Number(row.user_id);
      const at = new Date(row.created_at as string | number | Date).getTime();
      const member = members.get(id) ?? { joined: at, roles: [] };
      member.joined = Math.min(member.joined, at);
      member.roles.push(row.role);
      members.set(id, member);
    }
    const accounts: Array<{ id: number; email: string; name: string; site_name: string | null }> = await db('users')
      .leftJoin('site_memberships', (on) => on.on('site_memberships.user_id', 'users.id').andOnVal('site_memberships.site_id', siteId()))
      .whereIn('users.id', [...members.keys()])
      .select('users.id', 'users.email', 'users.name', 'site_memberships.name as site_name');
    const rows = accounts
      .map((account) => ({ id: Number(account.id), email: account.email, name: (account.site_name ?? account.name).toLowerCase(), ...members.get(Number(account.id))! }))
      .filter((row) => role === undefined || row.roles.includes(role));
    const field = sort.replace('-', '');
    const key = (row: (typeof rows)[number]) => (field === 'joinedAt' ? row.joined : field === 'name' ? row.name : row.email);
    const direction = sort.startsWith('-') ? -1 : 1;
    rows.sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      if (x !== y) return (x < y ? -1 : 1) * direction;
      return (a.id - b.id) * direction;
    });
    return rows.map((row) => row.id);
  }

  async function allPages(query: Record<string, string | number>): Promise<number[]> {
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const answer = await admin.api.call<MemberList>('listMembers', { query: { ...query, ...(cursor ? { cursor } : {}) } });
      expect(answer.status, answer.text).to.equal(200);
      seen.push(...answer.body.data.map((member) => member.id));
      cursor = answer.body.nextCursor ?? undefined;
    } while (cursor);
    return seen;
  }

  /** A member whose roles were all given at `at` (so several can share a joining time). */
  async function member(email: string, name: string, at: Date, roles: Array<'student' | 'lecturer' | 'staff'> = ['student'], siteName?: string): Promise<number> {
    const db = scratch().db;
    const user = await createUser(db, { email, name });
    await db('site_roles').insert(roles.map((role) => ({ site_id: siteId(), user_id: user.id, role, created_at: at })));
    await recordMembershipChange(db, siteId(), user.id, at);
    if (siteName !== undefined) {
      // As the importer and addMember write a site's name: the row, then its keys.
      await db('site_memberships').where({ site_id: siteId(), user_id: user.id }).update({ name: siteName });
      await recordMembershipChange(db, siteId(), user.id, at);
    }
    return user.id;
  }

  before(async () => {
    // Ties in every key: three share a joining time, two a name (in different case), names given by the site.
    const shared = new Date(base);
    await member('list.c@example.com', 'Same Name', shared);
    await member('list.a@example.com', 'same name', shared, ['student', 'lecturer']);
    await member('list.b@example.com', 'Account Name', shared, ['student'], 'Zed By The Site');
    for (let index = 0; index < 9; index += 1) {
      await member(`list.${String(index).padStart(2, '0')}@example.com`, `Listed ${9 - index}`, new Date(base + (index % 4) * 60000), index % 3 === 0 ? ['lecturer'] : ['student']);
    }
  });

  it('concatenates its pages into the whole list, in each sort order, with ties broken by id', async () => {
    for (const sort of SORTS) {
      for (const limit of [1, 4]) expect(await allPages({ sort, limit }), `${sort}, ${limit} a page`).to.deep.equal(await expectedOrder(sort));
    }
  });

  it('filters by role across pages in each sort order', async () => {
    for (const sort of SORTS) expect(await allPages({ sort, limit: 2, role: 'lecturer' }), sort).to.deep.equal(await expectedOrder(sort, 'lecturer'));
  });

  it('keeps its cursor across members added before and after it, and a member removed', async () => {
    const first = await admin.api.call<MemberList>('listMembers', { query: { sort: 'email', limit: 4 } });
    const before = await member('list.!before@example.com', 'Before', new Date(base));
    const after = await member('list.zz.after@example.com', 'After', new Date(base));
    const firstIds = first.body.data.map((row) => row.id);
    const rest: number[] = [];
    let cursor = first.body.nextCursor ?? undefined;
    while (cursor) {
      const page = await admin.api.call<MemberList>('listMembers', { query: { sort: 'email', limit: 4, cursor } });
      rest.push(...page.body.data.map((row) => row.id));
      cursor = page.body.nextCursor ?? undefined;
    }
    expect(rest).to.include(after);
    expect(rest).to.not.include(before);
    expect([...firstIds, ...rest]).to.deep.equal((await expectedOrder('email')).filter((id) => id !== before));
    await revokeRole(scratch().db, siteId(), after, 'student');
    expect(await allPages({ sort: 'email', limit: 5 })).to.not.include(after);
    expect(await allPages({ sort: 'email', limit: 5 })).to.deep.equal(await expectedOrder('email'));
  });

  it('searches by the start of the email or of the name, ignoring case, and pages through the matches', async () => {
    const byEmail = await admin.api.call<MemberList>('listMembers', { query: { q: 'LIST.0' } });
    expect(byEmail.body.data.map((row) => row.email).sort()).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8].map((index) => `list.0${index}@example.com`));
    const byName = await admin.api.call<MemberList>('listMembers', { query: { q: 'same NAME', sort: 'email' } });
    expect(byName.body.data.map((row) => row.email)).to.deep.equal(['list.a@example.com', 'list.c@example.com']);
    // The site's name is what is searched, not the account's own.
    expect((await admin.api.call<MemberList>('listMembers', { query: { q: 'zed by' } })).body.data.map((row) => row.email)).to.deep.equal(['list.b@example.com']);
    expect((await admin.api.call<MemberList>('listMembers', { query: { q: 'account name' } })).body.data).to.deep.equal([]);
    // A prefix, not a substring: the middle of an email or a name matches nothing.
    expect((await admin.api.call<MemberList>('listMembers', { query: { q: 'example.com' } })).body.data).to.deep.equal([]);
    expect((await admin.api.call<MemberList>('listMembers', { query: { q: 'name' } })).body.data).to.deep.equal([]);
    const paged = await allPages({ q: 'list', sort: '-name', limit: 3 });
    expect(paged).to.deep.equal((await expectedOrder('-name')).filter((id) => id !== admin.operator.id));
    expect(await allPages({ q: 'list', sort: 'joinedAt', limit: 2, role: 'lecturer' })).to.deep.equal(await expectedOrder('joinedAt', 'lecturer'));
  });

  it('moves a member in the list when their oldest role goes, and when the site renames them', async () => {
    const created = await admin.api.call<Member>('createMember', { body: { email: 'list.moves@example.com', name: 'Moving Member', roles: ['lecturer'] } });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.id;
    await grantRole(scratch().db, siteId(), id, 'student');
    const read = await admin.api.call<Member>('getMember', { path: { userId: String(id) } });
    const later = new Date(Date.now() + 60000);
    await scratch().db('site_roles').where({ site_id: siteId(), user_id: id, role: 'student' }).update({ created_at: later });
    const changed = await admin.api.call<Member>('updateMember', { path: { userId: String(id) }, headers: { 'if-match': read.headers.get('etag') ?? '' }, body: { roles: ['student'] } });
    expect(changed.status, changed.text).to.equal(200);
    expect(new Date(changed.body.joinedAt).getTime()).to.equal(later.getTime());
    expect(await allPages({ sort: 'joinedAt', limit: 3 })).to.deep.equal(await expectedOrder('joinedAt'));
    expect(await allPages({ sort: '-name', limit: 3 })).to.deep.equal(await expectedOrder('-name'));
  });

  it('lists imported members, and sorts and finds them by the name a re-import gives them', async () => {
    const site = { origin: admin.server.siteA.origin, name: admin.server.siteA.name };
    await importSiteDocument(scratch().db, {
      formatVersion: 1,
      site,
      users: [
        { email: 'list.imported.one@example.com', name: 'Imported One', roles: ['student'] },
        { email: 'list.imported.two@example.com', name: 'Imported Two', roles: ['student', 'lecturer'] },
      ],
    });
    for (const sort of SORTS) expect(await allPages({ sort, limit: 4 }), sort).to.deep.equal(await expectedOrder(sort));
    // A re-import that only renames: no role is added, the keys still follow the name.
    await importSiteDocument(scratch().db, { formatVersion: 1, site, users: [{ email: 'list.imported.one@example.com', name: 'Aardvark Renamed', roles: ['student'] }] });
    expect(await allPages({ sort: 'name', limit: 4 })).to.deep.equal(await expectedOrder('name'));
    const found = await admin.api.call<MemberList>('listMembers', { query: { q: 'aardvark' } });
    expect(found.body.data.map((row) => row.email)).to.deep.equal(['list.imported.one@example.com']);
  });

  it('costs three statements a page whatever the page: positions, rows, roles', async () => {
    const db = scratch().db;
    const statements: string[] = [];
    const count = (query: { sql: string }) => statements.push(query.sql);
    db.on('query', count);
    try {
      const first = await listMembers(db, siteId(), {}, { sort: 'name', limit: 3 });
      expect(statements).to.have.length(3);
      statements.length = 0;
      await listMembers(db, siteId(), {}, { sort: 'name', limit: 3, cursor: first.nextCursor ?? '' });
      expect(statements).to.have.length(3);
    } finally {
      db.off('query', count);
    }
  });

  it("reads a page's rows by the membership rows' primary key, which no store's statistics can steer away from", async () => {
    const db = scratch().db;
    const statements: Array<{ sql: string; bindings: readonly unknown[] }> = [];
    const record = (query: { sql: string; bindings?: readonly unknown[] }) => statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
    db.on('query', record);
    try {
      await listMembers(db, siteId(), {}, { sort: 'email', limit: 3 });
    } finally {
      db.off('query', record);
    }
    const rows = statements[1];
    expect(rows?.sql).to.match(/from `site_memberships` as `site_profile`/);
    const bindings = [...(rows?.bindings ?? [])] as Knex.RawBinding[];
    if (scratch().kind === 'mysql') {
      // With the site's and the accounts' ids instead, MariaDB whose statistics counted few distinct sites chose
      // `ref` on site_id and read every entry of the site.
      const [plan] = (await db.raw(`EXPLAIN ${rows?.sql ?? ''}`, bindings)) as [Array<{ table: string; key: string | null }>];
      expect(plan.find((step) => step.table === 'site_profile')?.key).to.equal('PRIMARY');
    } else {
      const plan = (await db.raw(`EXPLAIN QUERY PLAN ${rows?.sql ?? ''}`, bindings)) as Array<{ detail: string }>;
      expect(plan.map((step) => step.detail)).to.include.members(['SEARCH site_profile USING INTEGER PRIMARY KEY (rowid=?)']);
    }
  });

  it('backfills the keys and missing membership rows of existing data when migrating', async () => {
    const db = scratch().db;
    await memberListKeys.down(db);
    // Data as it was before the keys: a member without a membership row at all, and one renamed by the site.
    const legacy = await createUser(db, { email: 'list.legacy@example.com', name: 'Legacy Member' });
    await db('site_roles').insert({ site_id: siteId(), user_id: legacy.id, role: 'student', created_at: new Date(base - 60000) });
    await memberListKeys.up(db);
    const row = (await db('site_memberships').where({ site_id: siteId(), user_id: legacy.id }).first('joined_at', 'name_key', 'email_key')) as { joined_at: unknown; name_key: string; email_key: string };
    expect(row).to.include({ name_key: 'legacy member', email_key: 'list.legacy@example.com' });
    for (const sort of SORTS) expect(await allPages({ sort, limit: 4 }), sort).to.deep.equal(await expectedOrder(sort));
  });
});
