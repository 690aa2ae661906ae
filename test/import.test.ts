import fs from 'node:fs';
import { expect } from 'chai';
import { isMysql, requireDate, type Database } from '../src/db/connection.js';
import { verifyPassword } from '../src/accounts/passwords.js';
import { clientSecretMatches } from '../src/clients/client-secrets.js';
import { ALL_SCOPES } from '../src/clients/scopes.js';
import { buildDemoDocument, DEMO_CLIENTS, DEMO_LOGINS, seedDemoSchoolIfEmpty } from '../src/demo/demo-school.js';
import type { ImportDocument } from '../src/import/document.js';
import { IMPORT_TABLES, importSiteDocument, type ImportReport } from '../src/import/import-site.js';
import { IMPORT_SCHEMA_PATH, importDocumentProblems, importSchemaValidator } from '../src/import/validate.js';
import { describeEachDatabase } from './support/databases.js';
import { importRefusal } from './support/import-refusal.js';

const ORIGIN = 'http://localhost:3000';
const NOW = new Date();

function demo(origin = ORIGIN): ImportDocument {
  return buildDemoDocument(origin, NOW);
}

/** A deep copy to mutate: the document as a parsed JSON file would be. */
function mutable(document: ImportDocument): Record<string, unknown> & ImportDocument {
  return JSON.parse(JSON.stringify(document)) as Record<string, unknown> & ImportDocument;
}

async function tableNames(db: Database): Promise<string[]> {
  if (isMysql(db)) {
    const [rows] = (await db.raw('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()')) as [Array<{ name: string }>];
    return rows.map((row) => row.name).sort();
  }
  const rows: Array<{ name: string }> = await db('sqlite_master').where({ type: 'table' }).andWhereNot('name', 'like', 'sqlite_%').select('name');
  return rows.map((row) => row.name).sort();
}

/** Every row of every table, serialised and sorted, so two snapshots are equal exactly when no byte changed. */
async function snapshot(db: Database): Promise<Record<string, string[]>> {
  const result: Record<string, string[]> = {};
  for (const table of await tableNames(db)) {
    const rows: unknown[] = await db(table).select('*');
    result[table] = rows.map((row) => JSON.stringify(row)).sort();
  }
  return result;
}

async function rowCounts(db: Database): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [table, rows] of Object.entries(await snapshot(db))) counts[table] = rows.length;
  return counts;
}

async function count(db: Database, table: string, where: Record<string, unknown> = {}): Promise<number> {
  const row = await db(table).where(where).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

function totals(report: ImportReport): { created: number; updated: number; unchanged: number } {
  const sum = { created: 0, updated: 0, unchanged: 0 };
  for (const tally of Object.values(report.counts)) {
    sum.created += tally.created;
    sum.updated += tally.updated;
    sum.unchanged += tally.unchanged;
  }
  return sum;
}

function lectureCount(document: ImportDocument): number {
  return (document.courses ?? []).flatMap((course) => course.sections ?? []).flatMap((section) => section.lectures ?? []).length;
}

describe('import document schema', () => {
  it('compiles, and the demo document validates against it', () => {
    const validate = importSchemaValidator();
    const valid = validate(demo());
    expect(validate.errors ?? []).to.deep.equal([]);
    expect(valid).to.equal(true);
    expect(importDocumentProblems(demo())).to.deep.equal([]);
  });

  it('describes every property, forbids unknown ones everywhere, and lists exactly the service scopes', () => {
    const schema = JSON.parse(fs.readFileSync(IMPORT_SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
    expect(schema.$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).to.be.a('string');
    const undocumented: string[] = [];
    const open: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) return node.forEach((child, index) => walk(child, `${path}/${index}`));
      if (typeof node !== 'object' || node === null) return;
      const object = node as Record<string, unknown>;
      if (typeof object.properties === 'object' && object.properties !== null) {
        if (object.additionalProperties !== false) open.push(path);
        for (const [name, property] of Object.entries(object.properties as Record<string, Record<string, unknown>>)) {
          if (typeof property.description !== 'string' || property.description === '') undocumented.push(`${path}/properties/${name}`);
        }
      }
      for (const [key, child] of Object.entries(object)) walk(child, `${path}/${key}`);
    };
    walk(schema, '');
    expect(undocumented).to.deep.equal([]);
    expect(open).to.deep.equal([]);
    const defs = schema.$defs as Record<string, { enum: string[] }>;
    expect(defs.scope?.enum).to.have.members(ALL_SCOPES);
  });

  it('reports reference problems with pointers', () => {
    const document = mutable(demo());
    const client = document.oauthClients?.find((candidate) => candidate.clientId === DEMO_CLIENTS.member.clientId);
    if (!client) throw new Error('demo member client missing');
    client.clientSecret = 'a-secret-for-a-public-client';
    client.scopes.push('courses:read');
    document.enrollments![0]!.lastWatched = { lecture: 'ds-s1-l1', positionSeconds: 1, at: NOW.toISOString() };
    document.courses![1]!.slug = document.courses![0]!.slug;
    const meeting = document.consultingServices![0]!.meetings![0]!;
    meeting.endsAt = meeting.startsAt;
    document.vendorPlatforms![0]!.client = 'no-such-client';
    const problems = importDocumentProblems(document);
    const memberClient = document.oauthClients!.indexOf(client);
    expect(problems.map((problem) => problem.pointer)).to.have.members([
      `/oauthClients/${memberClient}/clientSecret`,
      `/oauthClients/${memberClient}/scopes/5`,
      '/enrollments/0/lastWatched/lecture',
      '/courses/1/slug',
      '/consultingServices/0/meetings/0/endsAt',
      '/vendorPlatforms/0/client',
    ]);
  });

  it('accepts only RFC 3339 times with an offset, on real calendar days', () => {
    const document = mutable(demo());
    document.enrollments![0]!.enrolledAt = '2026-02-30T10:00:00Z';
    document.enrollments![1]!.enrolledAt = '2026-01-01T23:59:60Z';
    document.enrollments![2]!.enrolledAt = '2026-01-01T10:00:00';
    document.enrollments![3]!.enrolledAt = '2026-01-01T10:00:00.250+08:00';
    const problems = importDocumentProblems(document);
    expect(problems.map((problem) => problem.pointer)).to.have.members(['/enrollments/0/enrolledAt', '/enrollments/1/enrolledAt', '/enrollments/2/enrolledAt']);
    expect(problems[0]?.message).to.equal('must match format "date-time"');
  });
});

describeEachDatabase('site import', (scratch) => {
  let first: ImportReport;

  it('imports the demo school into an empty database', async function () {
    this.timeout(60000);
    const { db } = scratch();
    const document = demo();
    const report = await seedDemoSchoolIfEmpty(db, ORIGIN, NOW);
    if (!report) throw new Error('the database was empty: the demo school should have been seeded');
    first = report;
    expect(report.site).to.include({ origin: ORIGIN, created: true });
    expect(Object.keys(report.counts)).to.deep.equal([...IMPORT_TABLES]);
    expect(totals(report).updated).to.equal(0);
    expect(totals(report).unchanged).to.equal(0);
    expect(report.generatedClientSecrets).to.deep.equal([]);

    for (const table of IMPORT_TABLES) expect(await count(db, table), table).to.equal(report.counts[table].created);
    expect(await count(db, 'sites')).to.equal(1);
    expect(await count(db, 'users')).to.equal(document.users?.length);
    expect(await count(db, 'courses')).to.equal(document.courses?.length);
    expect(await count(db, 'lectures')).to.equal(lectureCount(document));
    expect(await count(db, 'enrollments')).to.equal(document.enrollments?.length);
    expect(await count(db, 'payments')).to.equal(document.payments?.length);
    expect(await count(db, 'oauth_clients')).to.equal(document.oauthClients?.length);
    expect(await count(db, 'meeting_seats')).to.be.greaterThan(10);
    expect(await count(db, 'site_roles', { role: 'operator' })).to.equal(1);

    // A second call finds the site and leaves the database alone.
    expect(await seedDemoSchoolIfEmpty(db, ORIGIN, NOW)).to.equal(null);
  });

  it('stores what the document says: passwords, client secrets, flags, times and references', async () => {
    const { db } = scratch();
    const site = await db('sites').where({ origin: ORIGIN }).first();
    expect(Boolean(site.mcp_connections_enabled)).to.equal(true);
    expect(site).to.include({ name: 'Northwind Academy of Design', subdomain: 'localhost-3000', timezone: 'Asia/Taipei', default_currency: 'TWD' });

    // An imported password signs the account in at this site only: it is stored on the membership, not the account.
    const mia = await db('users').where({ email: DEMO_LOGINS.member.email }).first();
    expect(mia.password_hash).to.equal(null);
    const miaHere = await db('site_memberships').where({ site_id: site.id, user_id: mia.id }).first();
    expect(await verifyPassword(DEMO_LOGINS.member.password, miaHere.password_hash)).to.equal(true);
    const operator = await db('oauth_clients').where({ client_id: DEMO_CLIENTS.operator.clientId }).first();
    expect(await clientSecretMatches(DEMO_CLIENTS.operator.clientSecret, operator.secret_hash)).to.equal(true);
    expect(operator.token_endpoint_auth_method).to.equal('client_secret_post');
    const member = await db('oauth_clients').where({ client_id: DEMO_CLIENTS.member.clientId }).first();
    expect(member).to.include({ token_endpoint_auth_method: 'none', secret_hash: null });
    expect(JSON.parse(member.redirect_uris)).to.deep.equal([...DEMO_CLIENTS.member.redirectUris]);

    const live = await db('meetings').where({ external_id: 'mtg-oh-live' }).first();
    expect(requireDate(live.starts_at).getTime()).to.be.at.most(NOW.getTime());
    expect(requireDate(live.ends_at).getTime()).to.be.greaterThan(NOW.getTime());

    const enrollment = await db('enrollments').where({ external_id: 'enr-mia-typo' }).first();
    const lastWatched = await db('lectures').where({ id: enrollment.last_watched_lecture_id }).first();
    expect(lastWatched.external_id).to.equal('typo-s2-l2');
    expect(enrollment.last_watched_position_seconds).to.equal(312);
    const states: Array<{ state: string }> = await db('lecture_progress').where({ user_id: mia.id }).distinct('state');
    expect(states.map((row) => row.state)).to.have.members(['unread', 'read', 'completed']);

    const abandoned = await db('payments').where({ trade_no: 'NWA-100205' }).first();
    expect(abandoned).to.include({ payment_type: null, payment_state: 'unpaid' });
    const adjustment = await db('payment_adjustments').where({ code: 'WELCOME10' }).first();
    const coupon = await db('coupons').where({ code: 'WELCOME10' }).first();
    expect(adjustment.coupon_id).to.equal(coupon.id);
  });

  it('changes nothing when the same document is imported again', async function () {
    this.timeout(60000);
    const { db } = scratch();
    const before = await snapshot(db);
    const again = await importSiteDocument(db, demo());
    expect(again.site).to.include({ origin: ORIGIN, created: false });
    for (const table of IMPORT_TABLES) {
      expect(again.counts[table], table).to.deep.equal({ created: 0, updated: 0, unchanged: first.counts[table].created });
    }
    expect(await snapshot(db)).to.deep.equal(before);
  });

  it('refuses an invalid document with a pointer for every problem and writes nothing', async () => {
    const { db } = scratch();
    const before = await snapshot(db);
    const document = mutable(demo('https://new-school.example'));
    (document.courses![0] as unknown as Record<string, unknown>).title = 42;
    document.enrollments![3]!.course = 'crs-does-not-exist';
    (document.users![1] as unknown as Record<string, unknown>).nickname = 'ops';
    (document.payments![0] as unknown as Record<string, unknown>).paymentState = 'settled';
    const error = await importRefusal(importSiteDocument(db, document));
    expect(error.code).to.equal('invalid_import_document');
    expect(error.status).to.equal(400);
    expect(error.problems.map((problem) => problem.pointer)).to.have.members(['/courses/0/title', '/enrollments/3/course', '/users/1/nickname', '/payments/0/paymentState']);
    expect(error.problems).to.have.length(4);
    expect(error.problems.find((problem) => problem.pointer === '/payments/0/paymentState')?.message).to.match(/must be one of .*"paid"/);
    expect(error.problems.find((problem) => problem.pointer === '/courses/0/title')?.message).to.equal('must be string');
    expect(await snapshot(db)).to.deep.equal(before);
  });

  it('refuses a document whose last record is wrong, before writing any of the others', async () => {
    const { db } = scratch();
    const counts = await rowCounts(db);
    const document = mutable(demo('https://late-problem.example'));
    const last = document.payments!.length - 1;
    document.payments![last]!.user = 'nobody@example.com';
    const error = await importRefusal(importSiteDocument(db, document));
    expect(error.problems).to.deep.equal([{ pointer: `/payments/${last}/user`, message: 'names no user email of this document ("nobody@example.com")' }]);
    expect(await rowCounts(db)).to.deep.equal(counts);
  });

  it('refuses a new site whose subdomain another site has, and writes nothing', async () => {
    const { db } = scratch();
    const before = await snapshot(db);
    const document = mutable(demo('https://elsewhere.example'));
    document.site.subdomain = 'localhost-3000';
    const error = await importRefusal(importSiteDocument(db, document));
    expect(error.problems.map((problem) => problem.pointer)).to.deep.equal(['/site/subdomain']);
    expect(await snapshot(db)).to.deep.equal(before);
  });

  it('rolls the whole import back when the database fails part-way', async function () {
    this.timeout(60000);
    const { db } = scratch();
    const before = await snapshot(db);
    // The last table the importer writes refuses every insert; the new site and all its rows must go too.
    if (isMysql(db)) await db.raw("CREATE TRIGGER refuse_pages BEFORE INSERT ON pages FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'");
    else await db.raw("CREATE TRIGGER refuse_pages BEFORE INSERT ON pages BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
    try {
      let failure: unknown;
      await importSiteDocument(db, demo('https://second-school.example')).catch((error: unknown) => {
        failure = error;
      });
      expect(String(failure)).to.contain('injected failure');
    } finally {
      await db.raw('DROP TRIGGER refuse_pages');
    }
    expect(await snapshot(db)).to.deep.equal(before);
  });

  it('updates exactly the row whose data changed', async () => {
    const { db } = scratch();
    const before = await snapshot(db);
    const document = mutable(demo());
    const renamed = document.courses![1]!;
    const old = await db('courses').where({ external_id: renamed.externalId }).first();
    renamed.title = 'Design Systems for Product Teams (2nd edition)';

    const report = await importSiteDocument(db, document);
    expect(report.counts.courses).to.deep.equal({ created: 0, updated: 1, unchanged: document.courses!.length - 1 });
    expect(totals(report).updated).to.equal(1);
    expect(totals(report).created).to.equal(0);

    const after = await snapshot(db);
    for (const table of Object.keys(before)) if (table !== 'courses') expect(after[table], table).to.deep.equal(before[table]);
    const changed = (after.courses ?? []).filter((row) => !(before.courses ?? []).includes(row));
    expect(changed).to.have.length(1);
    const row = await db('courses').where({ id: old.id }).first();
    expect(row.title).to.equal('Design Systems for Product Teams (2nd edition)');
    expect(row.version).to.equal(old.version + 1);
    expect(requireDate(row.updated_at).getTime()).to.be.greaterThan(requireDate(old.updated_at).getTime());
    expect(requireDate(row.created_at).getTime()).to.equal(requireDate(old.created_at).getTime());
  });

  it('re-hashes a password only when it changed, and generates a secret for a confidential client without one', async function () {
    this.timeout(60000);
    const { db } = scratch();
    const document = mutable(demo());
    const staff = document.users!.find((user) => user.email === DEMO_LOGINS.staff.email)!;
    staff.password = 'a-brand-new-staff-password';
    document.oauthClients!.push({
      clientId: 'generated-secret-console',
      name: 'Console without a given secret',
      audience: 'operator',
      confidential: true,
      scopes: ['courses:read'],
      redirectUris: ['https://console.example/callback'],
    });
    const report = await importSiteDocument(db, document);
    expect(report.counts.users).to.deep.equal({ created: 0, updated: 0, unchanged: document.users!.length });
    expect(report.counts.site_memberships).to.deep.equal({ created: 0, updated: 1, unchanged: document.users!.length - 1 });
    expect(report.counts.oauth_clients).to.include({ created: 1, updated: 0 });
    const [generated] = report.generatedClientSecrets;
    expect(generated?.clientId).to.equal('generated-secret-console');
    const row = await db('oauth_clients').where({ client_id: 'generated-secret-console' }).first();
    expect(await clientSecretMatches(generated?.clientSecret ?? '', row.secret_hash)).to.equal(true);
    const user = await db('users').where({ email: DEMO_LOGINS.staff.email }).first();
    const membership = await db('site_memberships').where({ user_id: user.id }).first();
    expect(await verifyPassword('a-brand-new-staff-password', membership.password_hash)).to.equal(true);

    // The same document again: the stored hash verifies, the stored secret is kept, nothing is written.
    const before = await snapshot(db);
    const again = await importSiteDocument(db, document);
    expect(totals(again)).to.include({ created: 0, updated: 0 });
    expect(again.generatedClientSecrets).to.deep.equal([]);
    expect(await snapshot(db)).to.deep.equal(before);
  });
});
