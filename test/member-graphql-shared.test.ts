import { expect } from 'chai';
import { grantRole } from '../src/accounts/roles.js';
import type { User } from '../src/accounts/users.js';
import type { Variant } from '../src/config/config.js';
import type { ImportDocument } from '../src/import/document.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { decodeNodeId, encodeNodeId } from '../src/member/ids.js';
import { encodeCursor } from '../src/member/pagination.js';
import { describeEachDatabase } from './support/databases.js';
import { gql, memberToken, type GraphQLResult } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';
import { startTestServer, type TestServer } from './support/server.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** The world's clock, whole minutes, so DateTime values (whole seconds) compare exactly. */
const NOW = Math.floor(Date.now() / MINUTE) * MINUTE;
const at = (offset: number): string => new Date(NOW + offset).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A small school on `origin` for two members:
 * - Ada: courses Alpha (lifetime, progress, resume point), Beta (expires in 30 days), Delta (expired yesterday);
 *   products P1, P2 (P3's ownership ended); events E1, E2 (attended), E3 (canceled).
 * - Bo: courses Gamma and Alpha (other progress); product P4; event E4.
 * Services: Xylo (Alpha), Bravo (Beta + Gamma), Yarn (Gamma only), Zebra (Delta, expired for Ada), Aardvark (Beta, draft).
 */
function smallSchool(server: TestServer, ada: User, bo: User): ImportDocument {
  const users = [
    { email: ada.email, name: ada.name, avatarUrl: ada.avatarUrl, roles: ['student' as const] },
    { email: bo.email, name: bo.name, avatarUrl: bo.avatarUrl, roles: ['student' as const] },
  ];
  return {
    formatVersion: 1,
    site: { origin: server.siteA.origin, name: server.siteA.name, subdomain: server.siteA.subdomain },
    users,
    courses: [
      {
        externalId: 'crs-a',
        slug: 'alpha',
        title: 'Alpha Course',
        description: 'The first one.',
        coverImageUrl: 'https://cdn.example/alpha.jpg',
        status: 'published',
        sections: [
          {
            externalId: 'a-s1',
            title: 'Intro',
            lectures: [
              { externalId: 'a-l1', title: 'Welcome', kind: 'video', durationSeconds: 60 },
              { externalId: 'a-l2', title: 'Basics', kind: 'video', durationSeconds: 120 },
              { externalId: 'a-l3', title: 'Locked by staff', kind: 'text', durationSeconds: 30, locked: true },
            ],
          },
          {
            externalId: 'a-s2',
            title: 'Later',
            lectures: [
              { externalId: 'a-l4', title: 'Dripped yesterday', kind: 'video', durationSeconds: 90, unlockAt: at(-DAY) },
              { externalId: 'a-l5', title: 'Dripped next week', kind: 'video', durationSeconds: 45, unlockAt: at(7 * DAY) },
            ],
          },
          { externalId: 'a-s3', title: 'Coming soon' },
        ],
      },
      { externalId: 'crs-b', slug: 'beta', title: 'Beta Course', status: 'published', sections: [{ externalId: 'b-s1', title: 'Only', lectures: [{ externalId: 'b-l1', title: 'All of it', kind: 'video', durationSeconds: 300 }] }] },
      { externalId: 'crs-c', slug: 'gamma', title: 'Gamma Course', status: 'published', sections: [{ externalId: 'c-s1', title: 'Gamma one', lectures: [{ externalId: 'c-l1', title: 'Gamma lecture', kind: 'video', durationSeconds: 10 }] }] },
      { externalId: 'crs-d', slug: 'delta', title: 'Delta Course', status: 'published' },
    ],
    enrollments: [
      {
        externalId: 'enr-ada-a',
        course: 'crs-a',
        user: ada.email,
        enrolledAt: at(-10 * DAY),
        hasLifetimeAccess: true,
        lastWatched: { lecture: 'a-l2', positionSeconds: 42, at: at(-DAY) },
        progress: [
          { lecture: 'a-l1', state: 'completed', completedAt: at(-9 * DAY) },
          { lecture: 'a-l2', state: 'read', positionSeconds: 42 },
          { lecture: 'a-l4', state: 'completed', completedAt: at(-DAY) },
        ],
      },
      { externalId: 'enr-ada-b', course: 'crs-b', user: ada.email, enrolledAt: at(-5 * DAY), expiresAt: at(30 * DAY), hasLifetimeAccess: false },
      { externalId: 'enr-ada-d', course: 'crs-d', user: ada.email, enrolledAt: at(-20 * DAY), expiresAt: at(-DAY), hasLifetimeAccess: false },
      { externalId: 'enr-bo-c', course: 'crs-c', user: bo.email, enrolledAt: at(-3 * DAY), hasLifetimeAccess: true },
      { externalId: 'enr-bo-a', course: 'crs-a', user: bo.email, enrolledAt: at(-DAY), hasLifetimeAccess: true, progress: [{ lecture: 'a-l1', state: 'read' }, { lecture: 'a-l3', state: 'completed' }] },
    ],
    digitalProducts: [
      { externalId: 'p1', slug: 'p-one', title: 'P One', kind: 'ebook', status: 'published', owners: [{ user: ada.email, acquiredAt: at(-2 * DAY) }] },
      { externalId: 'p2', slug: 'p-two', title: 'P Two', kind: 'audio', status: 'published', coverImageUrl: 'https://cdn.example/p2.jpg', owners: [{ user: ada.email, acquiredAt: at(-8 * DAY) }] },
      { externalId: 'p3', slug: 'p-three', title: 'P Three', kind: 'file', status: 'published', owners: [{ user: ada.email, acquiredAt: at(-30 * DAY), expiresAt: at(-DAY) }] },
      { externalId: 'p4', slug: 'p-four', title: 'P Four', kind: 'file', status: 'published', owners: [{ user: bo.email, acquiredAt: at(-4 * DAY) }] },
    ],
    consultingServices: [
      {
        externalId: 'svc-x',
        title: 'Xylo Review',
        description: 'One to one.',
        durationMinutes: 30,
        capacity: 2,
        courses: ['crs-a'],
        slots: [
          { externalId: 'x-wed', weekday: 3, startTime: '10:00', durationMinutes: 30, timezone: 'Asia/Taipei', capacity: 2 },
          { externalId: 'x-sun', weekday: 0, startTime: '08:00', durationMinutes: 30, timezone: 'Asia/Taipei', capacity: 2 },
          { externalId: 'x-mon', weekday: 1, startTime: '09:00', durationMinutes: 45, timezone: 'Asia/Taipei', capacity: 3 },
          { externalId: 'x-old', weekday: 2, startTime: '09:00', durationMinutes: 45, timezone: 'Asia/Taipei', capacity: 3, validUntil: at(-DAY) },
        ],
        meetings: [
          { externalId: 'm1', slot: 'x-wed', startsAt: at(-7 * DAY), endsAt: at(-7 * DAY + 30 * MINUTE), state: 'scheduled', capacity: 2, roomUrl: 'https://meet.example/m1', seats: [{ user: bo.email, reservedAt: at(-9 * DAY) }] },
          {
            externalId: 'm2',
            slot: 'x-mon',
            startsAt: at(2 * DAY),
            endsAt: at(2 * DAY + 45 * MINUTE),
            state: 'available',
            capacity: 3,
            roomUrl: 'https://meet.example/m2',
            seats: [
              { user: ada.email, reservedAt: at(-DAY) },
              { user: bo.email, reservedAt: at(-DAY) },
            ],
          },
          { externalId: 'm3', slot: 'x-mon', startsAt: at(9 * DAY), endsAt: at(9 * DAY + 45 * MINUTE), state: 'available', capacity: 3 },
          { externalId: 'm4', slot: 'x-wed', startsAt: at(-14 * DAY), endsAt: at(-14 * DAY + 30 * MINUTE), state: 'canceled', capacity: 2, canceledAt: at(-15 * DAY), seats: [{ user: ada.email, reservedAt: at(-20 * DAY) }] },
          { externalId: 'm5', slot: 'x-wed', startsAt: at(-21 * DAY), endsAt: at(-21 * DAY + 30 * MINUTE), state: 'available', capacity: 2, seats: [{ user: bo.email, reservedAt: at(-22 * DAY), canceledAt: at(-21.5 * DAY) }] },
        ],
      },
      { externalId: 'svc-v', title: 'Bravo Sessions', durationMinutes: 60, capacity: 5, courses: ['crs-b', 'crs-c'] },
      { externalId: 'svc-y', title: 'Yarn Office Hours', durationMinutes: 60, capacity: 5, courses: ['crs-c'] },
      { externalId: 'svc-z', title: 'Zebra Clinic', durationMinutes: 60, capacity: 5, courses: ['crs-d'] },
      { externalId: 'svc-w', title: 'Aardvark Draft', durationMinutes: 60, capacity: 5, status: 'draft', courses: ['crs-b'] },
    ],
    events: [
      { externalId: 'e1', slug: 'e-one', title: 'E One', startsAt: at(10 * DAY), endsAt: at(10 * DAY + 60 * MINUTE), timezone: 'Asia/Taipei', format: 'venue', location: 'Main hall', registrations: [{ user: ada.email, state: 'registered', registeredAt: at(-DAY), ticketCode: 'T-1' }] },
      { externalId: 'e2', slug: 'e-two', title: 'E Two', startsAt: at(-20 * DAY), endsAt: at(-20 * DAY + 60 * MINUTE), format: 'online', onlineUrl: 'https://live.example/e2', registrations: [{ user: ada.email, state: 'attended', registeredAt: at(-25 * DAY) }] },
      { externalId: 'e3', slug: 'e-three', title: 'E Three', startsAt: at(30 * DAY), endsAt: at(30 * DAY + 60 * MINUTE), format: 'online', registrations: [{ user: ada.email, state: 'canceled', registeredAt: at(-3 * DAY), canceledAt: at(-2 * DAY) }] },
      { externalId: 'e4', slug: 'e-four', title: 'E Four', startsAt: at(5 * DAY), endsAt: at(5 * DAY + 60 * MINUTE), format: 'online', registrations: [{ user: bo.email, state: 'registered', registeredAt: at(-DAY) }] },
    ],
  };
}

/** `count` digital products owned by `user`, granted one hour apart (newest = product 1). */
function manyProducts(server: TestServer, user: User, count: number): ImportDocument {
  return {
    formatVersion: 1,
    site: { origin: server.siteA.origin, name: server.siteA.name, subdomain: server.siteA.subdomain },
    users: [{ email: user.email, name: user.name, roles: ['student'] }],
    digitalProducts: Array.from({ length: count }, (_, index) => ({
      externalId: `bulk-${index + 1}`,
      slug: `bulk-${index + 1}`,
      title: `Bulk ${index + 1}`,
      kind: 'file' as const,
      status: 'published' as const,
      owners: [{ user: user.email, acquiredAt: at(-(index + 1) * 60 * MINUTE) }],
    })),
  };
}

const SYLLABUS = `{
  viewer {
    enrolledCourses {
      totalCount
      nodes {
        id slug title description coverImageUrl expireDate hasLifetimeAccess
        lastWatchedLecture { lectureId positionSeconds }
        detailProgress { totalLecturesCount completedLecturesCount readLecturesCount unreadLecturesCount completionRate totalDurationSeconds completedDurationSeconds }
        sections { id title position lectures { id title state isLocked unlockAt duration position } }
      }
    }
  }
}`;

interface LectureView {
  id: string;
  title: string;
  state: string;
  isLocked: boolean;
  unlockAt: string | null;
  duration: number;
  position: number;
}
interface CourseView {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  coverImageUrl: string | null;
  expireDate: string | null;
  hasLifetimeAccess: boolean;
  lastWatchedLecture: { lectureId: string; positionSeconds: number } | null;
  detailProgress: Record<string, number>;
  sections: Array<{ id: string; title: string; position: number; lectures: LectureView[] }>;
}
interface PageInfoView {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}
interface ConnectionView<T> {
  totalCount: number;
  pageInfo: PageInfoView;
  edges: Array<{ cursor: string; node: T }>;
  nodes: T[];
}

function data<T = Record<string, unknown>>(result: GraphQLResult<T>): T {
  expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
  expect(result.status).to.equal(200);
  if (!result.data) throw new Error('no data');
  return result.data;
}

function errorCodes<T>(result: GraphQLResult<T>): unknown[] {
  return (result.errors ?? []).map((error) => error.extensions?.code);
}

const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

for (const variant of ['A', 'B'] as const satisfies readonly Variant[]) {
  describeEachDatabase(`member GraphQL, shared schema over HTTP [variant ${variant}]`, (scratch) => {
    let server: TestServer;
    let ada: User;
    let bo: User;
    let pager: User;
    let adaToken: string;
    let boToken: string;
    let pagerToken: string;
    const ask = <T>(token: string, query: string, variables?: Record<string, unknown>) => gql<T>(server.siteA.origin, variant, token, query, variables);

    before(async function () {
      this.timeout(120000);
      const db = scratch().db;
      server = await startTestServer(scratch(), { variant });
      ada = await makeUser(db, server.siteA, ['student'], 'Ada Member');
      bo = await makeUser(db, server.siteA, ['student'], 'Bo Member');
      pager = await makeUser(db, server.siteA, ['student'], 'Pager Member');
      await importSiteDocument(db, smallSchool(server, ada, bo));
      await importSiteDocument(db, manyProducts(server, pager, 105));
      // Ada also teaches at the other site on this server.
      await grantRole(db, server.siteB.id, ada.id, 'lecturer');
      await grantRole(db, server.siteB.id, ada.id, 'student');
      adaToken = await memberToken(db, server.siteA, ada);
      boToken = await memberToken(db, server.siteA, bo);
      pagerToken = await memberToken(db, server.siteA, pager);
    });
    after(async () => server.stop());

    it('serves the identity of the token owner', async () => {
      const result = data(await ask<{ viewer: { id: string; name: string; email: string; avatar: string } }>(adaToken, '{ viewer { id name email avatar } }'));
      expect(result.viewer).to.deep.equal({ id: String(ada.id), name: 'Ada Member', email: ada.email, avatar: 'https://cdn.example/avatar.png' });
    });

    it('gives a whole syllabus with per-lecture state, lock, unlock time and duration in one request', async () => {
      const { viewer } = data(await ask<{ viewer: { enrolledCourses: { totalCount: number; nodes: CourseView[] } } }>(adaToken, SYLLABUS));
      const courses = viewer.enrolledCourses.nodes;
      // Newest enrollment first: Beta (5 days ago), Alpha (10), Delta (20).
      expect(courses.map((course) => course.slug)).to.deep.equal(['beta', 'alpha', 'delta']);
      expect(viewer.enrolledCourses.totalCount).to.equal(3);
      const alpha = courses[1]!;
      expect(alpha).to.include({ title: 'Alpha Course', description: 'The first one.', coverImageUrl: 'https://cdn.example/alpha.jpg', expireDate: null, hasLifetimeAccess: true });
      expect(alpha.sections.map((section) => [section.title, section.position, section.lectures.length])).to.deep.equal([
        ['Intro', 1, 3],
        ['Later', 2, 2],
        ['Coming soon', 3, 0],
      ]);
      const lectures = alpha.sections.flatMap((section) => section.lectures);
      expect(lectures.map(({ id: _id, ...rest }) => rest)).to.deep.equal([
        { title: 'Welcome', state: 'completed', isLocked: false, unlockAt: null, duration: 60, position: 1 },
        { title: 'Basics', state: 'read', isLocked: false, unlockAt: null, duration: 120, position: 2 },
        { title: 'Locked by staff', state: 'unread', isLocked: true, unlockAt: null, duration: 30, position: 3 },
        { title: 'Dripped yesterday', state: 'completed', isLocked: false, unlockAt: at(-DAY), duration: 90, position: 1 },
        { title: 'Dripped next week', state: 'unread', isLocked: true, unlockAt: at(7 * DAY), duration: 45, position: 2 },
      ]);
      expect(alpha.detailProgress).to.deep.equal({
        totalLecturesCount: 5,
        completedLecturesCount: 2,
        readLecturesCount: 1,
        unreadLecturesCount: 2,
        completionRate: 0.4,
        totalDurationSeconds: 345,
        completedDurationSeconds: 150,
      });
      // The resume point names a lecture of the same syllabus, by its global id.
      expect(alpha.lastWatchedLecture).to.deep.equal({ lectureId: lectures[1]!.id, positionSeconds: 42 });
      expect(new Set(lectures.map((lecture) => lecture.id)).size).to.equal(5);
      expect(decodeNodeId('Lecture', lectures[1]!.id)).to.be.a('number');
      expect(decodeNodeId('Course', lectures[1]!.id)).to.equal(null);

      const beta = courses[0]!;
      expect(beta).to.include({ expireDate: at(30 * DAY), hasLifetimeAccess: false, lastWatchedLecture: null, description: null, coverImageUrl: null });
      expect(beta.detailProgress).to.include({ totalLecturesCount: 1, unreadLecturesCount: 1, completionRate: 0 });
      const delta = courses[2]!;
      // An ended enrollment stays listed with its past expireDate; a course without sections has an empty syllabus.
      expect(delta).to.include({ expireDate: at(-DAY), hasLifetimeAccess: false });
      expect(delta.sections).to.deep.equal([]);
      expect(delta.detailProgress).to.deep.equal({ totalLecturesCount: 0, completedLecturesCount: 0, readLecturesCount: 0, unreadLecturesCount: 0, completionRate: 0, totalDurationSeconds: 0, completedDurationSeconds: 0 });
    });

    it('never shows a member another member’s enrollments, progress, products, services or events', async () => {
      const query = `{ viewer {
        id
        enrolledCourses { nodes { slug lastWatchedLecture { lectureId } sections { lectures { title state } } } }
        digitalProducts { nodes { slug } }
        consultingServices { nodes { title courses { slug } } }
        eventRegistrations { nodes { event { slug } } }
      } }`;
      type View = {
        viewer: {
          id: string;
          enrolledCourses: { nodes: Array<{ slug: string; lastWatchedLecture: unknown; sections: Array<{ lectures: Array<{ title: string; state: string }> }> }> };
          digitalProducts: { nodes: Array<{ slug: string }> };
          consultingServices: { nodes: Array<{ title: string; courses: Array<{ slug: string }> }> };
          eventRegistrations: { nodes: Array<{ event: { slug: string } }> };
        };
      };
      const { viewer } = data(await ask<View>(boToken, query));
      expect(viewer.id).to.equal(String(bo.id));
      expect(viewer.enrolledCourses.nodes.map((course) => course.slug)).to.deep.equal(['alpha', 'gamma']);
      const alpha = viewer.enrolledCourses.nodes[0]!;
      // Bo's own states on the shared course, not Ada's.
      expect(alpha.sections.flatMap((section) => section.lectures.map((lecture) => lecture.state))).to.deep.equal(['read', 'unread', 'completed', 'unread', 'unread']);
      expect(alpha.lastWatchedLecture).to.equal(null);
      expect(viewer.digitalProducts.nodes.map((product) => product.slug)).to.deep.equal(['p-four']);
      expect(viewer.consultingServices.nodes).to.deep.equal([
        { title: 'Bravo Sessions', courses: [{ slug: 'gamma' }] },
        { title: 'Xylo Review', courses: [{ slug: 'alpha' }] },
        { title: 'Yarn Office Hours', courses: [{ slug: 'gamma' }] },
      ]);
      expect(viewer.eventRegistrations.nodes.map((registration) => registration.event.slug)).to.deep.equal(['e-four']);
    });

    it('lists digital products the viewer may download, newest grant first, without order data', async () => {
      const { viewer } = data(await ask<{ viewer: { digitalProducts: ConnectionView<Record<string, unknown>> } }>(adaToken, `{ viewer { digitalProducts { totalCount nodes { id slug title description coverImageUrl url } } } }`));
      expect(viewer.digitalProducts.totalCount).to.equal(2);
      expect(viewer.digitalProducts.nodes.map(({ id: _id, ...rest }) => rest)).to.deep.equal([
        { slug: 'p-one', title: 'P One', description: null, coverImageUrl: null, url: `${server.siteA.origin}/digital-products/p-one` },
        { slug: 'p-two', title: 'P Two', description: null, coverImageUrl: 'https://cdn.example/p2.jpg', url: `${server.siteA.origin}/digital-products/p-two` },
      ]);
    });

    it('lists event registrations by event start, newest first, canceled ones included', async () => {
      const query = `{ viewer { eventRegistrations { totalCount nodes { id state ticketName seats registeredAt event { id slug title startAt endAt timezone isOnline venue url coverImageUrl } } } } }`;
      const { viewer } = data(await ask<{ viewer: { eventRegistrations: ConnectionView<{ id: string; state: string; ticketName: null; seats: number; registeredAt: string; event: Record<string, unknown> }> } }>(adaToken, query));
      const nodes = viewer.eventRegistrations.nodes;
      expect(viewer.eventRegistrations.totalCount).to.equal(3);
      expect(nodes.map((node) => [node.event.slug, node.state])).to.deep.equal([
        ['e-three', 'CANCELED'],
        ['e-one', 'REGISTERED'],
        ['e-two', 'CHECKED_IN'],
      ]);
      const e1 = nodes[1]!;
      expect(e1).to.include({ ticketName: null, seats: 1, registeredAt: at(-DAY) });
      expect(e1.event).to.include({ title: 'E One', startAt: at(10 * DAY), endAt: at(10 * DAY + 60 * MINUTE), timezone: 'Asia/Taipei', isOnline: false, venue: 'Main hall', url: `${server.siteA.origin}/events/e-one` });
      expect(nodes[2]!.event).to.include({ isOnline: true, venue: null });
    });

    it('offers consulting services only against the viewer’s delivered courses, with slots and everyone’s reserved meetings', async () => {
      const query = `{ viewer { consultingServices { totalCount nodes {
        id title description durationMinutes
        courses { id slug title }
        slots { id weekday startTime durationMinutes timezone capacity }
        meetings { totalCount nodes { id state startAt startedAt endAt attendeesCount capacity } }
      } } enrolledCourses { nodes { id slug } } } }`;
      type Service = {
        id: string;
        title: string;
        description: string | null;
        durationMinutes: number;
        courses: Array<{ id: string; slug: string; title: string }>;
        slots: Array<Record<string, unknown>>;
        meetings: { totalCount: number; nodes: Array<Record<string, unknown>> };
      };
      const { viewer } = data(await ask<{ viewer: { consultingServices: ConnectionView<Service>; enrolledCourses: { nodes: Array<{ id: string; slug: string }> } } }>(adaToken, query));
      // Not Yarn (Bo's course only), not Zebra (Ada's Delta enrollment has ended), not Aardvark (draft); by title.
      expect(viewer.consultingServices.nodes.map((service) => service.title)).to.deep.equal(['Bravo Sessions', 'Xylo Review']);
      expect(viewer.consultingServices.totalCount).to.equal(2);
      const [bravo, xylo] = viewer.consultingServices.nodes as [Service, Service];
      const courseIds = new Map(viewer.enrolledCourses.nodes.map((course) => [course.slug, course.id]));
      expect(bravo.courses).to.deep.equal([{ id: courseIds.get('beta'), slug: 'beta', title: 'Beta Course' }]);
      expect(bravo.slots).to.deep.equal([]);
      expect(bravo.meetings).to.deep.equal({ totalCount: 0, nodes: [] });
      expect(xylo).to.include({ description: 'One to one.', durationMinutes: 30 });
      // Monday first, then by start time; the slot whose validity ended is gone.
      expect(xylo.slots.map(({ id: _id, ...slot }) => slot)).to.deep.equal([
        { weekday: 'MONDAY', startTime: '09:00', durationMinutes: 45, timezone: 'Asia/Taipei', capacity: 3 },
        { weekday: 'WEDNESDAY', startTime: '10:00', durationMinutes: 30, timezone: 'Asia/Taipei', capacity: 2 },
        { weekday: 'SUNDAY', startTime: '08:00', durationMinutes: 30, timezone: 'Asia/Taipei', capacity: 2 },
      ]);
      // Reserved meetings (a live seat), anyone's, newest start first; m3 (no seat) and m5 (seat canceled) are not reserved.
      expect(xylo.meetings.totalCount).to.equal(3);
      expect(xylo.meetings.nodes.map(({ id: _id, ...meeting }) => meeting)).to.deep.equal([
        { state: 'available', startAt: at(2 * DAY), startedAt: (NOW + 2 * DAY) / 1000, endAt: at(2 * DAY + 45 * MINUTE), attendeesCount: 2, capacity: 3 },
        { state: 'scheduled', startAt: at(-7 * DAY), startedAt: (NOW - 7 * DAY) / 1000, endAt: at(-7 * DAY + 30 * MINUTE), attendeesCount: 1, capacity: 2 },
        { state: 'canceled', startAt: at(-14 * DAY), startedAt: (NOW - 14 * DAY) / 1000, endAt: at(-14 * DAY + 30 * MINUTE), attendeesCount: 1, capacity: 2 },
      ]);
    });

    it('has no roomUrl or viewer marker on a service’s meetings, and their ids are not the viewer’s meeting ids', async () => {
      const refused = await ask(adaToken, '{ viewer { consultingServices { nodes { meetings { nodes { roomUrl } } } } } }');
      expect(refused.errors?.[0]?.message).to.match(/Cannot query field "roomUrl" on type "ServiceMeeting"/);
      const fields = data(await ask<{ __type: { fields: Array<{ name: string }> } }>(adaToken, '{ __type(name: "ServiceMeeting") { fields { name } } }'));
      expect(fields.__type.fields.map((field) => field.name).sort()).to.deep.equal(['attendeesCount', 'capacity', 'endAt', 'id', 'startAt', 'startedAt', 'state']);
      const meetingIds = data(await ask<{ viewer: { consultingServices: { nodes: Array<{ meetings: { nodes: Array<{ id: string }> } }> } } }>(adaToken, '{ viewer { consultingServices { nodes { meetings { nodes { id } } } } } }'));
      const serviceMeetingIds = meetingIds.viewer.consultingServices.nodes.flatMap((service) => service.meetings.nodes.map((meeting) => meeting.id));
      expect(serviceMeetingIds).to.have.length(3);
      for (const id of serviceMeetingIds) {
        const dbId = decodeNodeId('ServiceMeeting', id);
        expect(dbId).to.be.a('number');
        expect(encodeNodeId('ConsultingMeeting', dbId!)).to.not.equal(id);
      }
      if (variant === 'A') {
        const own = data(await ask<{ viewer: { consultingMeetings: { nodes: Array<{ id: string }> } } }>(adaToken, '{ viewer { consultingMeetings(first: 50) { nodes { id } } } }'));
        const ownIds = own.viewer.consultingMeetings.nodes.map((meeting) => meeting.id);
        // Ada's own seats are on two of the three catalogue meetings (m2, m4), yet no id is shared.
        expect(ownIds).to.have.length(2);
        for (const id of ownIds) expect(serviceMeetingIds).to.not.include(id);
      }
    });

    it('filters a service’s meetings by start time and state, and `last: 1` after now is the next one', async () => {
      const query = `query($filter: MeetingFilter, $first: Int, $last: Int) { viewer { consultingServices(first: 5) { nodes { title meetings(filter: $filter, first: $first, last: $last) { totalCount nodes { state startAt } } } } } }`;
      const meetingsOf = async (variables: Record<string, unknown>) => {
        const { viewer } = data(await ask<{ viewer: { consultingServices: { nodes: Array<{ title: string; meetings: { totalCount: number; nodes: Array<{ state: string; startAt: string }> } }> } } }>(adaToken, query, variables));
        return viewer.consultingServices.nodes.find((service) => service.title === 'Xylo Review')!.meetings;
      };
      const nowSeconds = Math.floor(Date.now() / 1000);
      expect(await meetingsOf({ filter: { startedAfter: nowSeconds } })).to.deep.equal({ totalCount: 1, nodes: [{ state: 'available', startAt: at(2 * DAY) }] });
      expect((await meetingsOf({ filter: { startedBefore: nowSeconds } })).nodes.map((meeting) => meeting.state)).to.deep.equal(['scheduled', 'canceled']);
      expect(await meetingsOf({ filter: { state: ['canceled'] } })).to.deep.equal({ totalCount: 1, nodes: [{ state: 'canceled', startAt: at(-14 * DAY) }] });
      expect(await meetingsOf({ filter: { state: [] } })).to.deep.equal({ totalCount: 0, nodes: [] });
      expect(await meetingsOf({ filter: { startedAfter: Math.floor((NOW - 10 * DAY) / 1000), state: ['available', 'scheduled'] }, last: 1 })).to.deep.equal({ totalCount: 2, nodes: [{ state: 'scheduled', startAt: at(-7 * DAY) }] });
      const unknownState = await ask(adaToken, query, { filter: { state: ['booked'] } });
      expect(unknownState.errors?.[0]?.message).to.match(/booked/);
    });

    it('pages forward and backward with opaque cursors, pageInfo and totalCount', async () => {
      const query = `query($first: Int, $after: String, $last: Int, $before: String) { viewer { enrolledCourses(first: $first, after: $after, last: $last, before: $before) { totalCount ${PAGE_INFO} edges { cursor node { slug } } nodes { slug } } } }`;
      type View = { viewer: { enrolledCourses: ConnectionView<{ slug: string }> } };
      const page = async (variables: Record<string, unknown>) => data(await ask<View>(adaToken, query, variables)).viewer.enrolledCourses;
      const first = await page({ first: 2 });
      expect(first.nodes.map((node) => node.slug)).to.deep.equal(['beta', 'alpha']);
      expect(first.edges.map((edge) => edge.node.slug)).to.deep.equal(['beta', 'alpha']);
      expect(first.totalCount).to.equal(3);
      expect(first.pageInfo).to.include({ hasNextPage: true, hasPreviousPage: false, startCursor: first.edges[0]!.cursor, endCursor: first.edges[1]!.cursor });
      const second = await page({ first: 2, after: first.pageInfo.endCursor });
      expect(second.nodes.map((node) => node.slug)).to.deep.equal(['delta']);
      expect(second.pageInfo).to.include({ hasNextPage: false, hasPreviousPage: true });
      const lastTwo = await page({ last: 2 });
      expect(lastTwo.nodes.map((node) => node.slug)).to.deep.equal(['alpha', 'delta']);
      expect(lastTwo.pageInfo).to.include({ hasNextPage: false, hasPreviousPage: true });
      const before = await page({ last: 2, before: lastTwo.pageInfo.startCursor });
      expect(before.nodes.map((node) => node.slug)).to.deep.equal(['beta']);
      expect(before.pageInfo).to.include({ hasNextPage: true, hasPreviousPage: false });
      const empty = await page({ first: 0 });
      expect(empty).to.deep.include({ totalCount: 3, nodes: [], edges: [] });
      expect(empty.pageInfo).to.include({ startCursor: null, endCursor: null });
    });

    it('defaults to 20, clamps pages at 100 and walks a long list both ways without gaps', async () => {
      const query = `query($first: Int, $after: String, $last: Int, $before: String) { viewer { digitalProducts(first: $first, after: $after, last: $last, before: $before) { totalCount ${PAGE_INFO} nodes { slug } } } }`;
      type View = { viewer: { digitalProducts: ConnectionView<{ slug: string }> } };
      const page = async (variables: Record<string, unknown>) => data(await ask<View>(pagerToken, query, variables)).viewer.digitalProducts;
      const byDefault = await page({});
      expect(byDefault.nodes).to.have.length(20);
      expect(byDefault.totalCount).to.equal(105);
      const clamped = await page({ first: 1000 });
      expect(clamped.nodes).to.have.length(100);
      expect(clamped.nodes[0]!.slug).to.equal('bulk-1');
      expect(clamped.pageInfo.hasNextPage).to.equal(true);
      const lastClamped = await page({ last: 500 });
      expect(lastClamped.nodes).to.have.length(100);
      expect(lastClamped.nodes[99]!.slug).to.equal('bulk-105');
      const expected = Array.from({ length: 105 }, (_, index) => `bulk-${index + 1}`);
      const forward: string[] = [];
      let after: string | null = null;
      for (;;) {
        const current: ConnectionView<{ slug: string }> = await page({ first: 40, after });
        forward.push(...current.nodes.map((node) => node.slug));
        if (!current.pageInfo.hasNextPage) break;
        after = current.pageInfo.endCursor;
      }
      expect(forward).to.deep.equal(expected);
      const backward: string[] = [];
      let before: string | null = null;
      for (;;) {
        const current: ConnectionView<{ slug: string }> = await page({ last: 40, before });
        backward.unshift(...current.nodes.map((node) => node.slug));
        if (!current.pageInfo.hasPreviousPage) break;
        before = current.pageInfo.startCursor;
      }
      expect(backward).to.deep.equal(expected);
    });

    it('refuses negative sizes, first with last and bad cursors with BAD_USER_INPUT', async () => {
      const cases: Array<[string, Record<string, unknown>]> = [
        ['query($n: Int) { viewer { enrolledCourses(first: $n) { totalCount } } }', { n: -1 }],
        ['query($n: Int) { viewer { digitalProducts(last: $n) { totalCount } } }', { n: -5 }],
        ['{ viewer { consultingServices(first: 1, last: 1) { totalCount } } }', {}],
        ['{ viewer { eventRegistrations(after: "not-a-cursor") { totalCount } } }', {}],
        ['query($c: String) { viewer { enrolledCourses(before: $c) { totalCount } } }', { c: encodeCursor(['Alpha Course', 1]) }],
        ['query($c: String) { viewer { consultingServices(after: $c) { totalCount } } }', { c: encodeCursor([1, 2, 3]) }],
        ['query($c: String) { viewer { consultingServices { nodes { meetings(after: $c) { totalCount } } } } }', { c: encodeCursor(['x', 'y']) }],
        ['{ viewer { consultingServices { nodes { meetings(first: -1) { totalCount } } } } }', {}],
      ];
      for (const [query, variables] of cases) {
        const result = await ask(adaToken, query, variables);
        expect(result.status, query).to.equal(200);
        expect(errorCodes(result), query).to.include('BAD_USER_INPUT');
      }
      // The server keeps serving.
      data(await ask(adaToken, '{ viewer { id } }'));
    });

    it('lists every site where the viewer holds a role, with role names, marking the token’s site', async () => {
      type View = { viewer: { schools: Array<{ id: string; name: string; subdomain: string; url: string; roles: string[]; isCurrent: boolean }>; enrolledCourses?: { totalCount: number } } };
      const fromA = data(await ask<View>(adaToken, '{ viewer { schools { id name subdomain url roles isCurrent } } }'));
      expect(fromA.viewer.schools).to.deep.equal([
        { id: String(server.siteA.id), name: server.siteA.name, subdomain: server.siteA.subdomain, url: server.siteA.origin, roles: ['student'], isCurrent: true },
        { id: String(server.siteB.id), name: server.siteB.name, subdomain: server.siteB.subdomain, url: server.siteB.origin, roles: ['lecturer', 'student'], isCurrent: false },
      ]);
      const tokenB = await memberToken(scratch().db, server.siteB, ada);
      const fromB = data(await gql<View>(server.siteB.origin, variant, tokenB, '{ viewer { schools { id isCurrent } enrolledCourses { totalCount } } }'));
      expect(fromB.viewer.schools).to.deep.equal([
        { id: String(server.siteA.id), isCurrent: false },
        { id: String(server.siteB.id), isCurrent: true },
      ]);
      // Only the token's site's data: Ada has no enrollments at site B.
      expect(fromB.viewer.enrolledCourses?.totalCount).to.equal(0);
      const boSchools = data(await ask<View>(boToken, '{ viewer { schools { id roles } } }'));
      expect(boSchools.viewer.schools).to.deep.equal([{ id: String(server.siteA.id), roles: ['student'] }]);
    });

    it('keeps order, coupon, refund, invoice and price data off the entitlement lists', async () => {
      for (const type of ['Course', 'DigitalProduct', 'ConsultingService', 'EventRegistration', 'Event', 'CourseConnection', 'DigitalProductConnection', 'ConsultingServiceConnection', 'EventRegistrationConnection']) {
        const result = data(await ask<{ __type: { fields: Array<{ name: string }> } }>(adaToken, `{ __type(name: "${type}") { fields { name } } }`));
        const names = result.__type.fields.map((field) => field.name);
        expect(names.filter((name) => /order|coupon|refund|invoice|price|payment|amount|trade/i.test(name)), type).to.deep.equal([]);
      }
    });
  });
}
