import { expect } from 'chai';
import type { User } from '../src/accounts/users.js';
import type { Variant } from '../src/config/config.js';
import type { ImportDocument } from '../src/import/document.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { describeEachDatabase } from './support/databases.js';
import { gql, memberToken } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const NOW = Math.floor(Date.now() / MINUTE) * MINUTE;
const at = (offset: number): string => new Date(NOW + offset).toISOString();

/**
 * Everything a member can have, `n` times over: n courses (2 sections × 3 lectures, a locked and a dripped lecture,
 * progress and a resume point), n consulting services on those courses (2 slots, 2 reserved meetings each), n study
 * groups (2 sessions each), n events, n digital products, n payments (line item, adjustment, invoice) and n
 * notifications. `key` keeps the records of different members apart.
 */
function memberWorld(server: TestServer, member: User, key: string, n: number): ImportDocument {
  const range = Array.from({ length: n }, (_, index) => index + 1);
  const course = (i: number) => `${key}-c${i}`;
  return {
    formatVersion: 1,
    site: { origin: server.siteA.origin, name: server.siteA.name, subdomain: server.siteA.subdomain },
    users: [{ email: member.email, name: member.name, roles: ['student'] }],
    courses: range.map((i) => ({
      externalId: course(i),
      slug: course(i),
      title: `Course ${key} ${i}`,
      status: 'published' as const,
      sections: [1, 2].map((s) => ({
        externalId: `${course(i)}-s${s}`,
        title: `Section ${s}`,
        lectures: [1, 2, 3].map((l) => ({
          externalId: `${course(i)}-s${s}-l${l}`,
          title: `Lecture ${s}.${l}`,
          kind: 'video' as const,
          durationSeconds: 60 * l,
          ...(l === 2 ? { locked: true } : {}),
          ...(s === 2 && l === 3 ? { unlockAt: at(7 * DAY) } : {}),
        })),
      })),
    })),
    enrollments: range.map((i) => ({
      externalId: `${course(i)}-enr`,
      course: course(i),
      user: member.email,
      enrolledAt: at(-i * DAY),
      hasLifetimeAccess: i % 2 === 0,
      expiresAt: i % 2 === 0 ? null : at(30 * DAY),
      lastWatched: { lecture: `${course(i)}-s1-l2`, positionSeconds: 30, at: at(-DAY) },
      progress: [
        { lecture: `${course(i)}-s1-l1`, state: 'completed' as const, completedAt: at(-DAY) },
        { lecture: `${course(i)}-s1-l2`, state: 'read' as const, positionSeconds: 30 },
      ],
    })),
    consultingServices: range.map((i) => ({
      externalId: `${key}-svc${i}`,
      title: `Service ${key} ${i}`,
      durationMinutes: 30,
      capacity: 2,
      courses: [course(i)],
      slots: [
        { externalId: 'mon', weekday: 1 as const, startTime: '09:00', durationMinutes: 30, timezone: 'UTC', capacity: 2 },
        { externalId: 'thu', weekday: 4 as const, startTime: '18:00', durationMinutes: 30, timezone: 'UTC', capacity: 2 },
      ],
      meetings: [-1, 1].map((sign) => ({
        externalId: `${key}-svc${i}-m${sign}`,
        slot: 'mon',
        startsAt: at(sign * i * DAY),
        endsAt: at(sign * i * DAY + 30 * MINUTE),
        state: 'scheduled' as const,
        capacity: 2,
        roomUrl: `https://meet.example/${key}/${i}`,
        seats: [{ user: member.email, reservedAt: at(-40 * DAY) }],
      })),
    })),
    studyGroups: range.map((i) => ({
      externalId: `${key}-grp${i}`,
      name: `Group ${key} ${i}`,
      course: course(i),
      members: [{ user: member.email, joinedAt: at(-30 * DAY) }],
      sessions: [{ externalId: 'wed', weekday: 3 as const, startTime: '20:00', durationMinutes: 60, timezone: 'UTC' }],
      meetings: [-1, 1].map((sign) => ({ externalId: `${key}-grp${i}-m${sign}`, session: 'wed', startsAt: at(sign * i * DAY + 3 * 60 * MINUTE), endsAt: at(sign * i * DAY + 4 * 60 * MINUTE), state: 'available' as const })),
    })),
    events: range.map((i) => ({
      externalId: `${key}-evt${i}`,
      slug: `${key}-evt${i}`,
      title: `Event ${key} ${i}`,
      startsAt: at(i * DAY),
      endsAt: at(i * DAY + 60 * MINUTE),
      format: 'online' as const,
      registrations: [{ user: member.email, state: 'registered' as const, registeredAt: at(-DAY) }],
    })),
    digitalProducts: range.map((i) => ({
      externalId: `${key}-prd${i}`,
      slug: `${key}-prd${i}`,
      title: `Product ${key} ${i}`,
      kind: 'ebook' as const,
      status: 'published' as const,
      owners: [{ user: member.email, acquiredAt: at(-i * DAY) }],
    })),
    payments: range.map((i) => ({
      tradeNo: `${key}-T${i}`,
      user: member.email,
      amount: 9000,
      currency: 'TWD',
      paymentType: 'credit_card' as const,
      paymentState: 'paid' as const,
      paidAt: at(-i * DAY),
      createdAt: at(-i * DAY),
      lineItems: [{ kind: 'course' as const, item: course(i), title: `Course ${key} ${i}`, unitAmount: 10000, amount: 10000 }],
      adjustments: [{ kind: 'promotion' as const, title: 'Launch', amount: -1000 }],
      invoice: { kind: 'personal' as const, status: 'issued' as const, invoiceNo: `${key.toUpperCase()}-${i}`, issuedAt: at(-i * DAY) },
    })),
    notifications: range.map((i) => ({ externalId: `${key}-ntf${i}`, user: member.email, kind: 'announcement' as const, title: `News ${i}`, createdAt: at(-i * DAY), ...(i % 3 === 0 ? { readAt: at(-DAY) } : {}) })),
  };
}

/** The whole viewer tree of the shared schema (variant B's whole API). Page sizes cover every record of the 30 member. */
const SHARED_TREE = `
  id name email avatar
  schools { id name subdomain url roles isCurrent }
  enrolledCourses(first: 50) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    nodes {
      id slug title description coverImageUrl expireDate hasLifetimeAccess
      lastWatchedLecture { lectureId positionSeconds }
      detailProgress { totalLecturesCount completedLecturesCount readLecturesCount unreadLecturesCount completionRate totalDurationSeconds completedDurationSeconds }
      sections { id title position lectures { id title state isLocked unlockAt duration position } }
    }
  }
  digitalProducts(first: 50) { totalCount pageInfo { hasNextPage endCursor } nodes { id slug title description coverImageUrl url } }
  consultingServices(first: 50) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes {
      id title description durationMinutes
      courses { id slug title }
      slots { id weekday startTime durationMinutes timezone capacity }
      meetings(first: 5) { totalCount pageInfo { hasNextPage endCursor } nodes { id state startAt startedAt endAt attendeesCount capacity } }
    }
  }
  eventRegistrations(first: 50) { totalCount pageInfo { hasNextPage endCursor } nodes { id state ticketName seats registeredAt event { id slug title startAt endAt timezone isOnline venue url } } }
`;

/** Variant A's additions: the viewer's meetings, payments and notification inbox. */
const VARIANT_A_TREE = `
  consultingMeetings(first: 50) { totalCount pageInfo { hasNextPage endCursor } nodes { id kind state startAt startedAt endAt roomUrl attendeesCount service { id title } studyGroup { id name } } }
  payments(first: 50) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes {
      id tradeNo amount currency paymentType paidAt paymentState createdAt
      adjustments { kind code title amount }
      invoice { number type title taxId status issuedAt }
      lineitems { title kind quantity unitAmount amount productId }
      installment { count firstInstallmentAmount perInstallmentAmount }
      refundingState refundedAmount refundedAt refundRequestedAt bankCode bankName codeNo expiredAt
    }
  }
  notifications(first: 50) { totalCount pageInfo { hasNextPage endCursor } nodes { id kind title body url createdAt readAt isRead } }
  unreadNotificationCount
  notificationSubscriptions { kind channel enabled }
`;

function fullTree(variant: Variant): string {
  return `query FullTree { viewer { ${SHARED_TREE} ${variant === 'A' ? VARIANT_A_TREE : ''} } }`;
}

interface TreeCounts {
  enrolledCourses: { totalCount: number; nodes: Array<{ sections: Array<{ lectures: unknown[] }> }> };
  digitalProducts: { totalCount: number };
  consultingServices: { totalCount: number; nodes: Array<{ slots: unknown[]; meetings: { totalCount: number } }> };
  eventRegistrations: { totalCount: number };
  consultingMeetings?: { totalCount: number };
  payments?: { totalCount: number };
  notifications?: { totalCount: number };
}

/** Bench-style report line, kept on stdout so the count is visible in the test output. */
function report(line: string): void {
  process.stdout.write(`      ${line}\n`);
}

for (const variant of ['A', 'B'] as const satisfies readonly Variant[]) {
  describeEachDatabase(`member GraphQL: SQL queries per request are bounded [variant ${variant}]`, (scratch) => {
    let server: TestServer;
    const tokens = new Map<number, string>();

    before(async function () {
      this.timeout(180000);
      const db = scratch().db;
      server = await startTestServer(scratch(), { variant });
      for (const [key, n] of [
        ['small', 3],
        ['large', 30],
      ] as const) {
        const member = await makeUser(db, server.siteA, ['student'], `Count ${key}`);
        await importSiteDocument(db, memberWorld(server, member, key, n));
        tokens.set(n, await memberToken(db, server.siteA, member));
      }
    });
    after(async () => server.stop());

    /** Runs the full tree for the member with `n` of everything and counts the SQL statements the request issued. */
    async function measure(n: number): Promise<{ queries: number; viewer: TreeCounts }> {
      const { queries, data } = await statementsOf<{ viewer: TreeCounts }>(n, fullTree(variant));
      return { queries, viewer: data.viewer };
    }

    it('costs the same number of SQL queries for 3 and for 30 of everything', async () => {
      const small = await measure(3);
      const large = await measure(30);
      for (const [n, { viewer }] of [
        [3, small],
        [30, large],
      ] as const) {
        // The tree really holds n of everything, all of it on one page.
        expect(viewer.enrolledCourses.totalCount).to.equal(n);
        expect(viewer.enrolledCourses.nodes).to.have.length(n);
        expect(viewer.enrolledCourses.nodes.flatMap((course) => course.sections.flatMap((section) => section.lectures))).to.have.length(6 * n);
        expect(viewer.digitalProducts.totalCount).to.equal(n);
        expect(viewer.consultingServices.totalCount).to.equal(n);
        expect(viewer.consultingServices.nodes.every((service) => service.slots.length === 2 && service.meetings.totalCount === 2)).to.equal(true);
        expect(viewer.eventRegistrations.totalCount).to.equal(n);
        if (variant === 'A') {
          expect(viewer.consultingMeetings?.totalCount).to.equal(4 * n);
          expect(viewer.payments?.totalCount).to.equal(n);
          expect(viewer.notifications?.totalCount).to.equal(n);
        }
      }
      const authentication = await authenticationStatements();
      report(`full viewer tree, variant ${variant} [${scratch().kind}]: ${small.queries} SQL queries for 3 of everything, ${large.queries} for 30 (${authentication} of them authenticate)`);
      expect(large.queries).to.equal(small.queries);
      // Beyond authentication (which also reads the member, the viewer): the shared tree is 13 statements
      // (enrolledCourses needs no count when its page is the whole list); variant A's connections add 16.
      expect(small.queries - authentication).to.equal(variant === 'A' ? 29 : 13);
    });

    /** The statements one query costs the member with `n` courses, and its answer. */
    async function statementsOf<T>(n: number, query: string): Promise<{ queries: number; data: T }> {
      const token = tokens.get(n)!;
      // Warm-up: the token's first use may record it (refresh rotation), and the site enters the cache; the count is of a steady-state request.
      await gql(server.siteA.origin, variant, token, query);
      let queries = 0;
      const onQuery = () => {
        queries += 1;
      };
      scratch().db.on('query', onQuery);
      try {
        const result = await gql<T>(server.siteA.origin, variant, token, query);
        expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
        expect(result.status).to.equal(200);
        return { queries, data: result.data! };
      } finally {
        scratch().db.off('query', onQuery);
      }
    }

    /** What authenticating a request costs: the token with its client, owner and roles (the site is cached), for a query that reads nothing. */
    async function authenticationStatements(): Promise<number> {
      const { queries } = await statementsOf<{ __typename: string }>(3, '{ __typename }');
      expect(queries).to.equal(1);
      return queries;
    }

    const SYLLABUS = `{ viewer { id name enrolledCourses(first: 50) { totalCount nodes { slug expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } detailProgress { completedLecturesCount totalLecturesCount completionRate } sections { title lectures { title state isLocked unlockAt duration } } } } } }`;
    type Courses = { viewer: { enrolledCourses: { totalCount?: number; nodes: Array<{ sections: Array<{ lectures: unknown[] }> }>; pageInfo?: { endCursor: string } } } };

    it('answers the full syllabus in 2 statements beyond authentication for 3 and for 30 courses: one page, one syllabus', async () => {
      const authentication = await authenticationStatements();
      const small = await statementsOf<Courses>(3, SYLLABUS);
      const large = await statementsOf<Courses>(30, SYLLABUS);
      report(`full syllabus, variant ${variant} [${scratch().kind}]: ${small.queries} SQL queries for 3 courses, ${large.queries} for 30 (${authentication} of them authenticate)`);
      expect(small.data.viewer.enrolledCourses.totalCount).to.equal(3);
      expect(large.data.viewer.enrolledCourses.totalCount).to.equal(30);
      expect(large.data.viewer.enrolledCourses.nodes.flatMap((course) => course.sections.flatMap((section) => section.lectures))).to.have.length(180);
      expect(small.queries - authentication).to.equal(2);
      expect(large.queries - authentication).to.equal(2);
    });

    it('counts the courses only when totalCount is selected and the page is not the whole list', async () => {
      const authentication = await authenticationStatements();
      const partial = await statementsOf<Courses>(30, '{ viewer { enrolledCourses(first: 5) { totalCount nodes { slug } } } }');
      expect(partial.data.viewer.enrolledCourses.totalCount).to.equal(30);
      // the page and the count
      expect(partial.queries - authentication).to.equal(2);
      const unasked = await statementsOf<Courses>(30, '{ viewer { enrolledCourses(first: 5) { nodes { slug } pageInfo { endCursor } } } }');
      expect(unasked.queries - authentication).to.equal(1);
      const cursor = unasked.data.viewer.enrolledCourses.pageInfo!.endCursor;
      const rest = await statementsOf<Courses>(30, `{ viewer { enrolledCourses(first: 50, after: "${cursor}") { totalCount nodes { slug } } } }`);
      expect(rest.data.viewer.enrolledCourses.nodes).to.have.length(25);
      expect(rest.data.viewer.enrolledCourses.totalCount).to.equal(30);
      expect(rest.queries - authentication).to.equal(2);
    });
  });
}
