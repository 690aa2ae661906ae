import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Database } from '../src/db/connection.js';
import type { EnrollmentInput, ImportDocument, UserInput } from '../src/import/document.js';
import { IMPORT_CHUNK_SIZE, importSiteDocument, importSiteFile } from '../src/import/import-site.js';
import { describeEachDatabase } from './support/databases.js';
import { importRefusal } from './support/import-refusal.js';
import { statementsOf } from './support/statements.js';

const LECTURES = ['l0', 'l1', 'l2', 'l3'];

/** A school of `users` members, each enrolled in one of two courses with a resume point and three lectures of progress. */
function school(origin: string, users: number, name: (index: number) => string = (index) => `Learner ${index}`): ImportDocument {
  const email = (index: number) => `learner-${index}@${new URL(origin).hostname}`;
  const courses = ['a', 'b'].map((course) => ({
    externalId: course,
    slug: `course-${course}`,
    title: `Course ${course}`,
    status: 'published' as const,
    sections: [{ externalId: `${course}-s`, title: 'Only section', lectures: LECTURES.map((lecture) => ({ externalId: lecture, title: lecture, kind: 'video' as const, durationSeconds: 60 })) }],
  }));
  const people: UserInput[] = Array.from({ length: users }, (_, index) => ({ email: email(index), name: name(index), roles: ['student'] }));
  const enrollments: EnrollmentInput[] = Array.from({ length: users }, (_, index) => ({
    externalId: `e${index}`,
    course: index % 2 === 0 ? 'a' : 'b',
    user: email(index),
    enrolledAt: '2026-01-05T09:00:00Z',
    hasLifetimeAccess: true,
    lastWatched: { lecture: 'l2', positionSeconds: 30, at: '2026-02-01T18:00:00Z' },
    progress: [
      { lecture: 'l0', state: 'completed', completedAt: '2026-01-06T10:00:00Z' },
      { lecture: 'l1', state: 'read', positionSeconds: 12 },
      { lecture: 'l2', state: 'unread' },
    ],
  }));
  return { formatVersion: 1, site: { origin, name: `School ${origin}` }, users: people, courses, enrollments };
}

async function count(db: Database, table: string): Promise<number> {
  const row = await db(table).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

async function rowCounts(db: Database): Promise<Record<string, number>> {
  const tables = ['users', 'site_memberships', 'site_roles', 'courses', 'lectures', 'enrollments', 'lecture_progress', 'sites'];
  return Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await count(db, table)] as const)));
}

describeEachDatabase('import in chunks', (scratch) => {
  // Not a multiple of the chunk size: two full chunks and a short one.
  const users = IMPORT_CHUNK_SIZE * 2 + 37;

  it('writes every record of a list whose length is not a multiple of the chunk size, and a re-import changes nothing', async function () {
    this.timeout(120000);
    const { db } = scratch();
    const document = school('https://chunks.example', users);
    const first = await importSiteDocument(db, document);
    expect(first.counts.users).to.deep.equal({ created: users, updated: 0, unchanged: 0 });
    expect(first.counts.site_memberships.created).to.equal(users);
    expect(first.counts.site_roles.created).to.equal(users);
    expect(first.counts.enrollments.created).to.equal(users);
    expect(first.counts.lecture_progress.created).to.equal(users * 3);
    const site = await db('sites').where({ origin: 'https://chunks.example' }).first('id');
    const last = await db('users').where({ email: `learner-${users - 1}@chunks.example` }).first('id');
    const enrollment = await db('enrollments').where({ site_id: site.id, external_id: `e${users - 1}` }).first();
    expect(enrollment.user_id).to.equal(last.id);
    const progress: Array<{ state: string }> = await db('lecture_progress').where({ user_id: last.id }).orderBy('state').select('state');
    expect(progress.map((row) => row.state)).to.deep.equal(['completed', 'read', 'unread']);
    // A new role bumps the membership's version (its admin API ETag), once.
    const membership = await db('site_memberships').where({ site_id: site.id, user_id: last.id }).first('version', 'name_key', 'email_key', 'joined_at');
    expect(membership).to.include({ version: 2, name_key: `learner ${users - 1}`, email_key: `learner-${users - 1}@chunks.example` });
    expect(membership.joined_at).to.not.equal(null); // what the admin member list sorts on (src/accounts/membership-keys.ts)

    const before = await db('enrollments').where({ site_id: site.id }).orderBy('id').select('*');
    const again = await importSiteDocument(db, document);
    for (const table of ['users', 'site_memberships', 'site_roles', 'enrollments', 'lecture_progress'] as const) {
      expect(again.counts[table], table).to.deep.equal({ created: 0, updated: 0, unchanged: first.counts[table].created });
    }
    expect(await db('enrollments').where({ site_id: site.id }).orderBy('id').select('*')).to.deep.equal(before);

    // One changed record in the last, short chunk: exactly that row is updated.
    const renamed = school('https://chunks.example', users, (index) => (index === users - 1 ? 'Renamed Learner' : `Learner ${index}`));
    const changed = await importSiteDocument(db, renamed);
    expect(changed.counts.site_memberships).to.deep.equal({ created: 0, updated: 1, unchanged: users - 1 });
    expect(changed.counts.enrollments).to.deep.equal({ created: 0, updated: 0, unchanged: users });
    const renamedRow = await db('site_memberships').where({ site_id: site.id, user_id: last.id }).first('name', 'version', 'name_key');
    expect(renamedRow).to.deep.equal({ name: 'Renamed Learner', version: 3, name_key: 'renamed learner' });
  });

  it('refuses a document whose bad record is in a late chunk, and writes none of the chunks before it', async function () {
    this.timeout(120000);
    const { db } = scratch();
    const before = await rowCounts(db);
    const document = school('https://late-chunk.example', users);
    const late = users - 5;
    document.enrollments![late]!.progress![1]!.lecture = 'no-such-lecture';
    const error = await importRefusal(importSiteDocument(db, document));
    expect(error.problems).to.deep.equal([{ pointer: `/enrollments/${late}/progress/1/lecture`, message: `names no lecture of course "${late % 2 === 0 ? 'a' : 'b'}" ("no-such-lecture")` }]);
    expect(await rowCounts(db)).to.deep.equal(before);
  });

  it('refuses duplicates in different chunks of users and enrollments, each naming the pointer of its first use, and writes nothing', async function () {
    this.timeout(120000);
    const { db } = scratch();
    const before = await rowCounts(db);
    const document = school('https://duplicates.example', users);
    const late = users - 3;
    const people = document.users!;
    const enrollments = document.enrollments!;
    // The same email in another case, an enrollment externalId used twice, one user enrolled twice in one course.
    people[late]!.email = people[1]!.email.toUpperCase();
    enrollments[late]!.user = people[1]!.email;
    enrollments[late]!.course = enrollments[1]!.course;
    enrollments[late + 1]!.externalId = enrollments[2]!.externalId.toUpperCase();
    enrollments[late + 2]!.user = 'nobody@duplicates.example';
    const error = await importRefusal(importSiteDocument(db, document));
    expect(error.problems).to.deep.equal([
      { pointer: `/users/${late}/email`, message: `duplicate user email "${people[late]!.email}" (first at /users/1/email)` },
      { pointer: `/enrollments/${late}`, message: 'duplicate enrollment of this user in this course (first at /enrollments/1)' },
      { pointer: `/enrollments/${late + 1}/externalId`, message: `duplicate enrollment externalId "E2" (first at /enrollments/2/externalId)` },
      { pointer: `/enrollments/${late + 2}/user`, message: 'names no user email of this document ("nobody@duplicates.example")' },
    ]);
    expect(await rowCounts(db)).to.deep.equal(before);
  });

  it('issues the same statements for every chunk: a thousand members with enrollments and progress cost a few dozen statements', async function () {
    this.timeout(120000);
    const { db } = scratch();
    await importSiteDocument(db, school('https://warm-up.example', 3)); // reads each table's columns once per process
    const cost = async (size: number) => (await statementsOf(db, () => importSiteDocument(db, school(`https://statements-${size}.example`, size)))).length;
    const [one, two, three] = [await cost(IMPORT_CHUNK_SIZE), await cost(IMPORT_CHUNK_SIZE * 2), await cost(IMPORT_CHUNK_SIZE * 3)];
    // A new site: per chunk of users, find the accounts, insert them, read their ids, insert roles and then memberships
    // (5); per chunk of enrollments, insert them, and their progress 500 rows at a time (4).
    // Nothing can be stored under a site this import creates, so neither looks its rows up.
    expect([two - one, three - two]).to.deep.equal([9, 9]);
    expect(one).to.equal(FIXED_STATEMENTS + 9);
    // The same documents again: per chunk, one lookup each of accounts, memberships, roles, enrollments (all found by
    // externalId) and progress (5), and nothing written.
    const again = async (size: number) => (await statementsOf(db, () => importSiteDocument(db, school(`https://statements-${size}.example`, size)))).length;
    const [oneAgain, twoAgain, threeAgain] = [await again(IMPORT_CHUNK_SIZE), await again(IMPORT_CHUNK_SIZE * 2), await again(IMPORT_CHUNK_SIZE * 3)];
    expect([twoAgain - oneAgain, threeAgain - twoAgain]).to.deep.equal([5, 5]);
    expect(oneAgain).to.equal(FIXED_STATEMENTS_AGAIN + 5);
  });
});

/**
 * What an import of the school above costs besides its chunks (the site, the courses with their sections and lectures,
 * the transaction), for a new site and again.
 */
const FIXED_STATEMENTS = 32;
const FIXED_STATEMENTS_AGAIN = 17;

describeEachDatabase('import from a file', (scratch) => {
  let directory: string;
  before(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-import-file-'));
  });
  after(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('reads a document many read buffers long record by record, with escapes and multi-byte characters cut across buffers', async function () {
    this.timeout(120000);
    const { db } = scratch();
    const users = 1500;
    // Names with quotes, backslashes, brackets and characters of two to four UTF-8 bytes, so buffer edges fall inside them.
    const name = (index: number) => `Lérner "${index}" \\ [{ 學生 }] 🎓 ${'é'.repeat(index % 7)}`;
    const document = school('https://from-file.example', users, name);
    // Sections in an order a hand-written file might use: enrollments before the users and courses they name.
    const { enrollments, ...rest } = document;
    const file = path.join(directory, 'school.json');
    fs.writeFileSync(file, `\ufeff${JSON.stringify({ enrollments, ...rest }, null, 1)}\n`);
    expect(fs.statSync(file).size).to.be.greaterThan(10 * 64 * 1024);

    const report = await importSiteFile(db, file);
    expect(report.counts.users.created).to.equal(users);
    expect(report.counts.enrollments.created).to.equal(users);
    expect(report.counts.lecture_progress.created).to.equal(users * 3);
    const names: Array<{ name: string }> = await db('users').whereIn('email', [`learner-0@from-file.example`, `learner-${users - 1}@from-file.example`]).orderBy('id').select('name');
    expect(names.map((row) => row.name)).to.deep.equal([name(0), name(users - 1)]);

    const again = await importSiteFile(db, file);
    expect(again.counts.site_memberships).to.deep.equal({ created: 0, updated: 0, unchanged: users });
    expect(again.counts.lecture_progress).to.deep.equal({ created: 0, updated: 0, unchanged: users * 3 });
  });

  it('refuses a file that is not one JSON object, naming where it stopped', async () => {
    const { db } = scratch();
    const before = await rowCounts(db);
    const cases: Array<[string, RegExp]> = [
      ['{"formatVersion": 1, "users": [{"email": "a@b.example"},]}', /expected a value after ","/],
      ['{"formatVersion": 1, "site": {"origin": "https://x.example"', /ends before its top-level object/],
      ['[1, 2]', /not a JSON object/],
      ['{"formatVersion": 1, "users": [],}', /expected a member name/],
      ['{"formatVersion": 1} {}', /unexpected text after the document/],
      ['{"users": [{"email": tru}]}', /users\[0\]/],
    ];
    for (const [text, problem] of cases) {
      const file = path.join(directory, 'broken.json');
      fs.writeFileSync(file, text);
      let failure: unknown;
      await importSiteFile(db, file).catch((error: unknown) => {
        failure = error;
      });
      expect(String(failure), text).to.match(problem);
    }
    expect(await rowCounts(db)).to.deep.equal(before);
  });
});
