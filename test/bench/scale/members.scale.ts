/**
 * bench:scale, members and courses.
 *
 * - A member with 200 courses × 100 lectures (20,000 lectures with progress) next to the bench member of 20 × 50: the
 *   full syllabus query, a page of 100 courses at a time. The statements one page costs are counted in this process
 *   (a knex query listener on an in-process server over the same database, asked with the product's Host); the
 *   product, in its own process, is timed with one connection asking the pages in turn (p99, target < 500 ms).
 * - A site with 100,000 members: the admin API's member list (limit 100, sorted by email) at its first, middle and last
 *   page by cursor, and the search by email (`q`), timed from here (median of a few requests each), next to the same
 *   with 1,000 members; the search statement's plan (EXPLAIN on MySQL, EXPLAIN QUERY PLAN on SQLite) says whether an
 *   index serves it.
 */
import autocannon from 'autocannon';
import type { Knex } from 'knex';
import { findUserByEmail } from '../../../src/accounts/users.js';
import type { ImportDocument } from '../../../src/import/document.js';
import { importSiteDocument } from '../../../src/import/import-site.js';
import { startServer } from '../../../src/server.js';
import { createLogger } from '../../../src/shared/logger.js';
import { createSite, type Site } from '../../../src/sites/sites.js';
import { variantProfile } from '../../../src/variant.js';
import { issueToken } from '../../support/admin.js';
import { createScratchDatabase, type ScratchDatabase } from '../../support/databases.js';
import { memberToken } from '../../support/member-api.js';
import { testConfig } from '../../support/server.js';
import { SYLLABUS_COURSE_SELECTION, syllabusDocument } from '../syllabus-data.js';
import { percentFrom, startProduct, VARIANT } from './load.js';
import { median, request } from './probes.js';
import type { ScaleContext, ScaleScenario, ScaleSeries } from './types.js';

const P99_TARGET_MS = 500;
/** A page of the admin list may cost this much more at the largest size than at the smallest and still count as constant. */
const CONSTANT_WITHIN = 0.5;

interface Sizes {
  courses: number;
  sections: number;
  lecturesPerSection: number;
  page: number;
  members: number[];
  seconds: number;
  repeats: number;
}

const FULL: Sizes = { courses: 200, sections: 10, lecturesPerSection: 10, page: 100, members: [1000, 100000], seconds: 8, repeats: 11 };
const QUICK: Sizes = { courses: 24, sections: 2, lecturesPerSection: 5, page: 10, members: [100, 1000], seconds: 1, repeats: 2 };

const syllabusQuery = (page: number) => `query Syllabus($after: String) {
  viewer {
    id name
    enrolledCourses(first: ${page}, after: $after) {
      pageInfo { hasNextPage endCursor }
      ${SYLLABUS_COURSE_SELECTION}
    }
  }
}`;

/** The big member's school: `courses` courses of sections × lectures, all enrolled, each with progress on its first 20 lectures. */
function bigMemberDocument(origin: string, sizes: Sizes, email: string): ImportDocument {
  const now = Date.now();
  const iso = (offsetDays: number) => new Date(now + offsetDays * 86400000).toISOString();
  const lectureId = (c: number, s: number, l: number) => `big-c${c}-s${s}-l${l}`;
  const courses = Array.from({ length: sizes.courses }, (_, c) => ({
    externalId: `big-c${c}`,
    slug: `big-c${c}`,
    title: `Big course ${c}`,
    status: 'published' as const,
    sections: Array.from({ length: sizes.sections }, (_, s) => ({
      externalId: `big-c${c}-s${s}`,
      title: `Section ${s}`,
      lectures: Array.from({ length: sizes.lecturesPerSection }, (_, l) => ({
        externalId: lectureId(c, s, l),
        title: `Lecture ${s}.${l}`,
        kind: 'video' as const,
        durationSeconds: 300 + l * 30,
        ...(l === sizes.lecturesPerSection - 1 ? { unlockAt: iso(7) } : {}),
      })),
    })),
  }));
  const perCourse = sizes.sections * sizes.lecturesPerSection;
  return {
    formatVersion: 1,
    site: { origin, name: 'Bench School' },
    users: [{ email, name: 'Big Member', roles: ['student'] }],
    courses,
    enrollments: courses.map((course, c) => ({
      externalId: `big-enrollment-${c}`,
      course: course.externalId,
      user: email,
      enrolledAt: iso(-400 + c),
      hasLifetimeAccess: true,
      lastWatched: { lecture: lectureId(c, 0, 1), positionSeconds: 90, at: iso(-1) },
      progress: Array.from({ length: Math.min(20, perCourse) }, (_, index) => {
        const s = Math.floor(index / sizes.lecturesPerSection);
        const l = index % sizes.lecturesPerSection;
        return { lecture: lectureId(c, s, l), state: index < 15 ? ('completed' as const) : ('read' as const) };
      }),
    })),
  };
}

/** An in-process server over the bench's database whose every statement this process sees; asked with the product's Host. */
async function countingServer(scratch: ScratchDatabase) {
  const running = await startServer(testConfig({ variant: VARIANT, database: scratch.config }), { db: scratch.db, logger: createLogger('silent') });
  return {
    url: running.listeningOn,
    stop: () => running.stop(1000),
    /** The statements `work` issues, in order, with their bindings. */
    async statementsOf(work: () => Promise<unknown>): Promise<Array<{ sql: string; bindings: readonly unknown[] }>> {
      const statements: Array<{ sql: string; bindings: readonly unknown[] }> = [];
      const listener = (query: { sql: string; bindings?: readonly unknown[] }) => statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
      scratch.db.on('query', listener);
      try {
        await work();
      } finally {
        scratch.db.off('query', listener);
      }
      return statements;
    },
  };
}

type Counting = Awaited<ReturnType<typeof countingServer>>;

async function syllabusSeries(context: ScaleContext, sizes: Sizes, scratch: ScratchDatabase, site: Site, productUrl: string, counting: Counting): Promise<ScaleSeries[]> {
  const smallEmail = 'small.member@scale.test';
  const bigEmail = 'big.member@scale.test';
  const started = performance.now();
  await importSiteDocument(scratch.db, syllabusDocument(site.origin, new Date(), { prefix: 'small-', email: smallEmail, name: 'Small Member' }));
  await importSiteDocument(scratch.db, bigMemberDocument(site.origin, sizes, bigEmail));
  context.log(`members: imported the big member (${sizes.courses} courses × ${sizes.sections * sizes.lecturesPerSection} lectures) in ${Math.round(performance.now() - started)} ms`);
  const path = variantProfile(VARIANT).memberGraphql.path;
  const host = new URL(site.origin).host;
  const tokenOf = async (email: string) => {
    const user = await findUserByEmail(scratch.db, email);
    if (!user) throw new Error(`${email} was not imported`);
    return memberToken(scratch.db, site, user, 'account:read');
  };
  const members = [
    { label: 'bench member', lectures: 20 * 50, token: await tokenOf(smallEmail) },
    { label: 'big member', lectures: sizes.courses * sizes.sections * sizes.lecturesPerSection, token: await tokenOf(bigEmail) },
  ];
  const body = (after: string | null) => JSON.stringify({ query: syllabusQuery(sizes.page), variables: { after } });
  const ask = async (base: string, token: string, after: string | null) => {
    const answer = await request(`${base}${path}`, { method: 'POST', headers: { host, 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: body(after) });
    const parsed = JSON.parse(answer.body) as { data?: { viewer: { enrolledCourses: { pageInfo: { endCursor: string | null } } } }; errors?: unknown[] };
    if (answer.status !== 200 || parsed.errors || !parsed.data) throw new Error(`the syllabus answered ${answer.status}: ${answer.body.slice(0, 400)}`);
    return { cursor: parsed.data.viewer.enrolledCourses.pageInfo.endCursor, bytes: answer.body.length };
  };

  const counts: Array<{ label: string; lectures: number; statements: number[]; bytes: number; p99: number; rate: number }> = [];
  for (const member of members) {
    // Warm-up: the token's first use and the site's entry in the cache are not a steady-state request.
    const first = await ask(counting.url, member.token, null);
    const statements: number[] = [];
    const pages: Array<string | null> = [null];
    if (member.label === 'big member') pages.push(first.cursor);
    let bytes = 0;
    for (const after of pages) {
      let answered = { cursor: null as string | null, bytes: 0 };
      const issued = await counting.statementsOf(async () => (answered = await ask(counting.url, member.token, after)));
      statements.push(issued.length);
      bytes = Math.max(bytes, answered.bytes);
    }
    // The product, in its own process: one connection asking the member's pages in turn.
    let next = 0;
    const bodies = pages.map(body);
    await ask(productUrl, member.token, null);
    const timed = await autocannon({
      url: `${productUrl}${path}`,
      connections: 1,
      duration: sizes.seconds,
      requests: [
        {
          method: 'POST',
          headers: { host, 'content-type': 'application/json', authorization: `Bearer ${member.token}` },
          setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }),
        },
      ],
    });
    if (timed.non2xx + timed.errors > 0) throw new Error(`the timed syllabus requests failed: ${timed.non2xx} non-2xx, ${timed.errors} errors`);
    counts.push({ label: member.label, lectures: member.lectures, statements, bytes, p99: timed.latency.p99, rate: Math.round(timed.requests.average) });
    context.log(`members: ${member.label} (${member.lectures} lectures): statements per page ${statements.join(', ')}, largest page ${Math.round(bytes / 1024)} KB, p99 ${timed.latency.p99} ms, ${Math.round(timed.requests.average)} req/s on 1 connection`);
  }
  const small = counts[0];
  const big = counts.at(-1);
  if (!small || !big) return [];
  const constant = [...small.statements, ...big.statements].every((count) => count === small.statements[0]);
  return [
    {
      id: 'member-syllabus-statements',
      title: `Statements per syllabus page (${sizes.page} courses a page)`,
      xLabel: "lectures in the member's courses",
      yLabel: 'SQL statements per page',
      logX: true,
      store: context.kind,
      points: counts.map((count) => ({ x: count.lectures, value: Math.max(...count.statements), note: `${count.label}: ${count.statements.join(' and ')} (page 1${count.statements.length > 1 ? ', page 2' : ''})` })),
      verdict: `constant: ${constant ? 'yes' : 'NO'} (${small.statements.join('/')} for ${small.lectures.toLocaleString('en')} lectures, ${big.statements.join('/')} for ${big.lectures.toLocaleString('en')})`,
    },
    {
      id: 'member-syllabus-latency',
      title: `Syllabus page latency, one connection (${sizes.page} courses a page)`,
      xLabel: "lectures in the member's courses",
      yLabel: 'req/s (1 connection)',
      logX: true,
      store: context.kind,
      points: counts.map((count) => ({ x: count.lectures, value: count.rate, p99Ms: count.p99, note: `largest page ${Math.round(count.bytes / 1024)} KB` })),
      verdict: `p99 < ${P99_TARGET_MS} ms at ${big.lectures.toLocaleString('en')} lectures: ${big.p99 < P99_TARGET_MS ? 'yes' : 'NO'} (${big.p99} ms)`,
    },
  ];
}

const memberEmail = (index: number) => `member-${String(index).padStart(7, '0')}@scale.test`;

/** Members `from` … `to − 1` of the site: accounts, a student role each and their membership rows, in multi-row inserts (of 400: SQLite compounds at most 500 rows). */
async function addMembers(db: Knex, siteId: number, from: number, to: number): Promise<void> {
  const base = Date.UTC(2025, 0, 1);
  await db.transaction(async (trx) => {
    for (let start = from; start < to; start += 400) {
      const end = Math.min(to, start + 400);
      await trx('users').insert(
        Array.from({ length: end - start }, (_, offset) => {
          const at = new Date(base + (start + offset) * 1000);
          return { email: memberEmail(start + offset), name: `Member ${start + offset}`, created_at: at, updated_at: at };
        }),
      );
    }
    const range = [memberEmail(from), memberEmail(to - 1)];
    await trx.raw(`INSERT INTO site_roles (site_id, user_id, role, created_at) SELECT ?, id, 'student', created_at FROM users WHERE email BETWEEN ? AND ?`, [siteId, ...range]);
    // The list's keys as recordMembershipChange writes them (src/accounts/membership-keys.ts): joined with the one role.
    await trx.raw(
      `INSERT INTO site_memberships (site_id, user_id, version, created_at, updated_at, joined_at, name_key, email_key) SELECT ?, id, 1, created_at, created_at, created_at, LOWER(name), email FROM users WHERE email BETWEEN ? AND ?`,
      [siteId, ...range],
    );
  });
}

/** Whether a statement's plan reads its tables through an index, and the plan in one line. */
async function planOf(db: Knex, kind: 'mysql' | 'sqlite', statement: { sql: string; bindings: readonly unknown[] }): Promise<{ indexed: boolean; summary: string }> {
  if (kind === 'mysql') {
    const [rows] = (await db.raw(`EXPLAIN ${statement.sql}`, [...statement.bindings] as Knex.RawBinding[])) as [Array<{ table: string; type: string | null; key: string | null; rows: number }>];
    // A derived table (`<derived2>`, `<union2,3>`) holds rows already found through an index: reading it all is no scan of a table.
    const scans = rows.filter((row) => (row.type === 'ALL' || row.type === 'index') && !row.table.startsWith('<'));
    return { indexed: scans.length === 0, summary: rows.map((row) => `${row.table}: ${row.type ?? '-'}${row.key ? ` (${row.key})` : ''}, ~${row.rows} rows`).join('; ') };
  }
  const rows = (await db.raw(`EXPLAIN QUERY PLAN ${statement.sql}`, [...statement.bindings] as Knex.RawBinding[])) as Array<{ detail: string }>;
  // A subquery's rows (CO-ROUTINE or MATERIALIZE x, then SCAN x) were found by the subquery's own steps.
  const subqueries = new Set(rows.flatMap((row) => /^(?:CO-ROUTINE|MATERIALIZE) (\S+)/.exec(row.detail)?.[1] ?? []));
  const scans = rows.filter((row) => /^SCAN /.test(row.detail) && !/USING (COVERING )?INDEX/.test(row.detail) && !subqueries.has(row.detail.split(' ')[1] ?? ''));
  return { indexed: scans.length === 0, summary: rows.map((row) => row.detail).join('; ') };
}

async function memberListSeries(context: ScaleContext, sizes: Sizes, scratch: ScratchDatabase, site: Site, counting: Counting): Promise<ScaleSeries[]> {
  const { token } = await issueToken(scratch.db, site, { scopes: ['members:read'] });
  const host = new URL(site.origin).host;
  const list = async (base: string, query: Record<string, string>) => {
    const started = performance.now();
    const answer = await request(`${base}/api/admin/v1/members?${new URLSearchParams(query).toString()}`, { headers: { host, authorization: `Bearer ${token}` } });
    const ms = performance.now() - started;
    if (answer.status !== 200) throw new Error(`listMembers answered ${answer.status}: ${answer.body.slice(0, 400)}`);
    return { ms, body: JSON.parse(answer.body) as { data: Array<{ email: string }>; nextCursor: string | null } };
  };
  const timed = async (query: Record<string, string>) => {
    await list(site.origin, query);
    const times: number[] = [];
    for (let repeat = 0; repeat < sizes.repeats; repeat += 1) times.push((await list(site.origin, query)).ms);
    return Math.round(median(times) * 10) / 10;
  };
  /** A cursor of the product's own shape, moved to the member at `index` (keyset: email, then account id). */
  const cursorAt = async (firstCursor: string, index: number) => {
    const user = await findUserByEmail(scratch.db, memberEmail(index));
    if (!user) throw new Error(`no member ${index}`);
    const payload = JSON.parse(Buffer.from(firstCursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    return Buffer.from(JSON.stringify({ ...payload, value: user.email, id: user.id }), 'utf8').toString('base64url');
  };

  const points: Array<{ members: number; first: number; middle: number; last: number; search: number; plan: { indexed: boolean; summary: string }; pagePlan: { indexed: boolean; summary: string } }> = [];
  let present = 0;
  for (const members of sizes.members) {
    const started = performance.now();
    await addMembers(scratch.db, site.id, present, members);
    present = members;
    context.log(`members: ${members} members in the site (added in ${Math.round(performance.now() - started)} ms)`);
    const limit = String(sizes.page);
    const firstPage = await list(site.origin, { sort: 'email', limit });
    if (!firstPage.body.nextCursor) throw new Error('the first page of members has no next cursor');
    const middleCursor = await cursorAt(firstPage.body.nextCursor, Math.floor(members / 2));
    const lastCursor = await cursorAt(firstPage.body.nextCursor, members - sizes.page - 1);
    const middlePage = await list(site.origin, { sort: 'email', limit, cursor: middleCursor });
    if (middlePage.body.data[0]?.email !== memberEmail(Math.floor(members / 2) + 1)) throw new Error(`the middle page starts at ${middlePage.body.data[0]?.email}`);
    const searchQuery = { q: memberEmail(Math.floor(members / 3)), limit };
    const search = await list(site.origin, searchQuery);
    if (search.body.data.length !== 1) throw new Error(`the search by email found ${search.body.data.length} members`);
    // The search's statements, as the product issues them: the one filtering by the text is the one to explain.
    const issued = await counting.statementsOf(() => list(counting.url, searchQuery));
    const filtering = issued.find((statement) => /email_key/i.test(statement.sql) && /limit/i.test(statement.sql));
    if (!filtering) throw new Error('the search issued no statement filtering by email_key');
    // The middle page's statements: the one reading the positions (ORDER BY … LIMIT) shows whether a page is a range.
    const paged = await counting.statementsOf(() => list(counting.url, { sort: 'email', limit, cursor: middleCursor }));
    const positions = paged.find((statement) => /order by/i.test(statement.sql) && /limit/i.test(statement.sql));
    if (!positions) throw new Error('the middle page issued no ORDER BY … LIMIT statement');
    const point = {
      members,
      pagePlan: await planOf(scratch.db, context.kind, positions),
      first: await timed({ sort: 'email', limit }),
      middle: await timed({ sort: 'email', limit, cursor: middleCursor }),
      last: await timed({ sort: 'email', limit, cursor: lastCursor }),
      search: await timed(searchQuery),
      plan: await planOf(scratch.db, context.kind, filtering),
    };
    points.push(point);
    context.log(`members: ${members} members: page of ${limit} first ${point.first} ms, middle ${point.middle} ms, last ${point.last} ms (middle page plan: ${point.pagePlan.summary}); search by email ${point.search} ms; plan: ${point.plan.summary}`);
  }
  const smallest = points[0];
  const largest = points.at(-1);
  if (!smallest || !largest) return [];
  const slowest = (point: (typeof points)[number]) => Math.max(point.first, point.middle, point.last);
  const constant = slowest(largest) <= slowest(smallest) * (1 + CONSTANT_WITHIN);
  return [
    {
      id: 'members-admin-list-page',
      title: `Admin API member list, one page of ${sizes.page} by cursor (slowest of first, middle, last)`,
      xLabel: 'members in the site',
      yLabel: 'ms per page (median)',
      logX: true,
      store: context.kind,
      points: points.map((point) => ({ x: point.members, value: slowest(point), note: `first ${point.first}, middle ${point.middle}, last ${point.last} ms` })),
      verdict: `constant per page: ${constant ? 'yes' : 'NO'} (${percentFrom(slowest(smallest), slowest(largest))} from ${smallest.members.toLocaleString('en')} to ${largest.members.toLocaleString('en')} members); a page read through an index: ${largest.pagePlan.indexed ? 'yes' : 'NO'} (middle page: ${largest.pagePlan.summary})`,
    },
    {
      id: 'members-admin-search',
      title: 'Admin API member search by email (q)',
      xLabel: 'members in the site',
      yLabel: 'ms per search (median)',
      logX: true,
      store: context.kind,
      points: points.map((point) => ({ x: point.members, value: point.search })),
      verdict: `served by an index: ${largest.plan.indexed ? 'yes' : 'NO'} (${percentFrom(smallest.search, largest.search)} from ${smallest.members.toLocaleString('en')} to ${largest.members.toLocaleString('en')}); plan: ${largest.plan.summary}`,
    },
  ];
}

async function run(context: ScaleContext): Promise<ScaleSeries[]> {
  const sizes = context.quick ? QUICK : FULL;
  const scratch = await createScratchDatabase(context.kind);
  try {
    const product = await startProduct(scratch.url);
    try {
      const counting = await countingServer(scratch);
      try {
        const site = await createSite(scratch.db, { origin: product.url, name: 'Bench School', subdomain: 'scale' });
        return [...(await syllabusSeries(context, sizes, scratch, site, product.url, counting)), ...(await memberListSeries(context, sizes, scratch, site, counting))];
      } finally {
        await counting.stop();
      }
    } finally {
      await product.stop();
    }
  } finally {
    await scratch.drop();
  }
}

export const membersScenario: ScaleScenario = { name: 'members', run };
