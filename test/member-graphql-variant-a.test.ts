import { expect } from 'chai';
import { findUserByEmail, type User } from '../src/accounts/users.js';
import type { Database } from '../src/db/connection.js';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import type { ConsultingMeetingInput, ImportDocument, PaymentInput, StudyGroupMeetingInput } from '../src/import/document.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { encodeNodeId } from '../src/member/ids.js';
import { describeEachDatabase } from './support/databases.js';
import { gql, memberToken, type GraphQLResult } from './support/member-api.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * Variant A's member fields over HTTP (/member/graphql): viewer.consultingMeetings, viewer.payments, the notification
 * inbox and the three notification mutations (spec: "Consulting", "Payment node", "Meeting state", "GraphQL
 * operations on the member API", "Limits"). Data: the demo school (Mia, docs/demo.md) plus an import document with
 * edge cases and bulk rows.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const MIA = DEMO_LOGINS.member.email;
const NOAH = 'noah.kim@example.com';
const SMALL = 'small.member@example.com';
const BULK = 'bulk.member@example.com';
const EDGE = 'edge.member@example.com';
const OTHER = 'other.member@example.com';
const THIRD = 'third.member@example.com';

const EDGE_ROOM = 'https://meet.example/r/edge-live';

interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

interface Meeting {
  id: string;
  kind: 'CONSULTING_SLOT' | 'STUDY_GROUP';
  state: 'available' | 'scheduled' | 'canceled';
  startAt: string;
  startedAt: number;
  endAt: string;
  roomUrl: string;
  attendeesCount: number;
  service: { id: string; title: string } | null;
  studyGroup: { id: string; name: string } | null;
}

interface Connection<T> {
  edges: Array<{ cursor: string; node: T }>;
  nodes: T[];
  pageInfo: PageInfo;
  totalCount: number;
}

interface Payment {
  id: string;
  tradeNo: string;
  amount: number;
  currency: string;
  paymentType: string | null;
  paidAt: string | null;
  paymentState: string;
  adjustments: Array<{ kind: string; code: string | null; title: string; amount: number }>;
  invoice: { number: string | null; type: string; title: string | null; taxId: string | null; status: string; issuedAt: string | null } | null;
  lineitems: Array<{ title: string; kind: string; quantity: number; unitAmount: number; amount: number; productId: string | null }>;
  installment: { count: number; firstInstallmentAmount: number; perInstallmentAmount: number } | null;
  refundingState: string;
  refundedAmount: number;
  refundedAt: string | null;
  refundRequestedAt: string | null;
  bankCode: string | null;
  bankName: string | null;
  codeNo: string | null;
  expiredAt: string | null;
  createdAt: string;
}

interface Notification {
  id: string;
  kind: string;
  title: string;
  body: string;
  url: string | null;
  createdAt: string;
  readAt: string | null;
  isRead: boolean;
}

interface Subscription {
  kind: string;
  channel: string;
  enabled: boolean;
}

const MEETING_FIELDS = 'id kind state startAt startedAt endAt roomUrl attendeesCount service { id title } studyGroup { id name }';
const PAYMENT_FIELDS = `id tradeNo amount currency paymentType paidAt paymentState
  adjustments { kind code title amount }
  invoice { number type title taxId status issuedAt }
  lineitems { title kind quantity unitAmount amount productId }
  installment { count firstInstallmentAmount perInstallmentAmount }
  refundingState refundedAmount refundedAt refundRequestedAt
  bankCode bankName codeNo expiredAt createdAt`;
const NOTIFICATION_FIELDS = 'id kind title body url createdAt readAt isRead';
const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount';

const iso = (ms: number): string => new Date(ms).toISOString();

/** Edge cases and bulk rows at site A, beside the demo school. */
function extraDocument(origin: string, now: number): ImportDocument {
  const student = (email: string, name: string) => ({ email, name, roles: ['student' as const] });
  const consulting: ConsultingMeetingInput[] = [];
  const group: Record<string, StudyGroupMeetingInput[]> = { small: [], bulk: [] };
  const payments: PaymentInput[] = [];
  // SMALL has 3 meetings and 3 payments, BULK 60 of each, of the same shapes: the query count must not differ.
  for (const [key, email, count] of [['small', SMALL, 3], ['bulk', BULK, 60]] as const) {
    for (let i = 0; i < count; i += 1) {
      const start = now + (i - count / 2) * DAY + i * MINUTE;
      const meeting = { externalId: `x-${key}-${i}`, startsAt: iso(start), endsAt: iso(start + HOUR), state: 'available' as const, roomUrl: `https://meet.example/r/${key}-${i}` };
      if (i % 6 === 0) group[key]?.push(meeting);
      else consulting.push({ ...meeting, capacity: 4, seats: [{ user: email, reservedAt: iso(now - 30 * DAY) }] });
      payments.push({
        tradeNo: `X-${key.toUpperCase()}-${String(i).padStart(3, '0')}`,
        user: email,
        amount: 90_000,
        currency: 'TWD',
        paymentType: 'credit_card',
        paymentState: 'paid',
        createdAt: iso(now - (i + 1) * HOUR),
        paidAt: iso(now - (i + 1) * HOUR + MINUTE),
        lineItems: [{ kind: 'course', item: 'crs-x', title: 'Course X', unitAmount: 100_000, amount: 100_000 }],
        adjustments: [{ kind: 'promotion', title: 'Launch', amount: -10_000 }],
        invoice: { kind: 'personal', status: 'issued', invoiceNo: `INV-${key}-${i}`, issuedAt: iso(now - (i + 1) * HOUR + 2 * MINUTE) },
      });
    }
  }
  consulting.push(
    // Live now: the room link shows; OTHER's seat counts, THIRD's canceled seat does not.
    {
      externalId: 'x-edge-live',
      startsAt: iso(now - 10 * MINUTE),
      endsAt: iso(now + 50 * MINUTE),
      state: 'scheduled',
      capacity: 4,
      roomUrl: EDGE_ROOM,
      seats: [
        { user: EDGE, reservedAt: iso(now - DAY) },
        { user: OTHER, reservedAt: iso(now - DAY) },
        { user: THIRD, reservedAt: iso(now - DAY), canceledAt: iso(now - HOUR) },
      ],
    },
    // Within its time window but canceled: no room link.
    { externalId: 'x-edge-live-canceled', startsAt: iso(now - 5 * MINUTE), endsAt: iso(now + 30 * MINUTE), state: 'canceled', capacity: 4, roomUrl: 'https://meet.example/r/canceled', canceledAt: iso(now - HOUR), seats: [{ user: EDGE, reservedAt: iso(now - DAY) }] },
    { externalId: 'x-edge-ended', startsAt: iso(now - 3 * HOUR), endsAt: iso(now - 2 * HOUR), state: 'scheduled', capacity: 4, roomUrl: 'https://meet.example/r/ended', seats: [{ user: EDGE, reservedAt: iso(now - DAY) }] },
    { externalId: 'x-edge-future', startsAt: iso(now + 2 * DAY), endsAt: iso(now + 2 * DAY + HOUR), state: 'scheduled', capacity: 4, roomUrl: 'https://meet.example/r/future', seats: [{ user: EDGE, reservedAt: iso(now - DAY) }] },
    // EDGE canceled this seat: not one of EDGE's meetings any more.
    { externalId: 'x-edge-seat-canceled', startsAt: iso(now + 3 * DAY), endsAt: iso(now + 3 * DAY + HOUR), state: 'available', capacity: 4, seats: [{ user: EDGE, reservedAt: iso(now - DAY), canceledAt: iso(now - HOUR) }] },
    { externalId: 'x-other-only', startsAt: iso(now + 4 * DAY), endsAt: iso(now + 4 * DAY + HOUR), state: 'available', capacity: 4, seats: [{ user: OTHER, reservedAt: iso(now - DAY) }] },
  );
  const edgePayment = (tradeNo: string, hoursAgo: number, extra: Partial<PaymentInput> & Pick<PaymentInput, 'paymentType' | 'paymentState'>): PaymentInput => ({
    tradeNo,
    user: EDGE,
    amount: 50_000,
    currency: 'TWD',
    createdAt: iso(now - hoursAgo * HOUR),
    lineItems: [{ kind: 'course', item: 'crs-x', title: 'Course X', unitAmount: 50_000, amount: 50_000 }],
    ...extra,
  });
  payments.push(
    // Abandoned before a method was chosen, deadline passed while the row still says unpaid: listed as expired.
    edgePayment('X-EDGE-ABANDONED-LAPSED', 30, { paymentType: null, paymentState: 'unpaid', expiredAt: iso(now - HOUR) }),
    // Abandoned, unpaid, no deadline: held back.
    edgePayment('X-EDGE-ABANDONED-OPEN', 1, { paymentType: null, paymentState: 'unpaid' }),
    // Abandoned and then canceled: not unpaid, so listed.
    edgePayment('X-EDGE-ABANDONED-CANCELED', 20, { paymentType: null, paymentState: 'canceled' }),
    // ATM paid: the stored instructions are no longer shown.
    edgePayment('X-EDGE-ATM-PAID', 10, { paymentType: 'atm', paymentState: 'paid', paidAt: iso(now - 9 * HOUR), bankCode: '812', bankName: 'Taishin', codeNo: '000111', expiredAt: iso(now + DAY) }),
    // ATM past its deadline while the row still says unpaid: expired, instructions shown.
    edgePayment('X-EDGE-ATM-LAPSED', 40, { paymentType: 'atm', paymentState: 'unpaid', bankCode: '812', bankName: 'Taishin', codeNo: '000222', expiredAt: iso(now - DAY) }),
    // Convenience store, unpaid: a code and a deadline, no bank.
    edgePayment('X-EDGE-CVS-UNPAID', 2, { paymentType: 'convenience_store', paymentState: 'unpaid', codeNo: 'CVS-333', expiredAt: iso(now + 2 * DAY) }),
  );
  return {
    formatVersion: 1,
    site: { origin, name: 'Northwind Academy of Design', timezone: 'Asia/Taipei', defaultCurrency: 'TWD' },
    users: [student(SMALL, 'Small Member'), student(BULK, 'Bulk Member'), student(EDGE, 'Edge Member'), student(OTHER, 'Other Member'), student(THIRD, 'Third Member')],
    courses: [{ externalId: 'crs-x', slug: 'course-x', title: 'Course X', status: 'published' }],
    consultingServices: [{ externalId: 'svc-x', title: 'Service X', durationMinutes: 60, capacity: 4, meetings: consulting }],
    studyGroups: [
      { externalId: 'grp-x-small', name: 'Small Group', members: [{ user: SMALL, joinedAt: iso(now - 50 * DAY) }, { user: OTHER, joinedAt: iso(now - 50 * DAY) }], meetings: group.small },
      { externalId: 'grp-x-bulk', name: 'Bulk Group', members: [{ user: BULK, joinedAt: iso(now - 50 * DAY) }, { user: OTHER, joinedAt: iso(now - 50 * DAY) }], meetings: group.bulk },
    ],
    payments,
  };
}

/** Mia at site B: none of it may show at site A (a member only sees their own data at the token's site). */
function siteBDocument(origin: string, now: number): ImportDocument {
  return {
    formatVersion: 1,
    site: { origin, name: 'Beta School' },
    users: [{ email: MIA, name: DEMO_LOGINS.member.name, roles: ['student'] }],
    consultingServices: [
      { externalId: 'svc-b', title: 'Beta Service', durationMinutes: 30, capacity: 2, meetings: [{ externalId: 'b-mtg', startsAt: iso(now + DAY), endsAt: iso(now + DAY + HOUR), state: 'available', capacity: 2, seats: [{ user: MIA, reservedAt: iso(now) }] }] },
    ],
    payments: [{ tradeNo: 'B-0001', user: MIA, amount: 100, currency: 'USD', paymentType: 'credit_card', paymentState: 'paid', createdAt: iso(now - MINUTE), paidAt: iso(now - MINUTE) }],
    notifications: [{ externalId: 'b-ntf', user: MIA, kind: 'announcement', title: 'Beta news', createdAt: iso(now - MINUTE) }],
  };
}

function expectNoErrors(result: GraphQLResult<unknown>): void {
  expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
  expect(result.status).to.equal(200);
}

function errorCodes(result: GraphQLResult<unknown>): unknown[] {
  return (result.errors ?? []).map((error) => error.extensions?.code);
}

describeEachDatabase('member GraphQL variant A: meetings, payments, notifications', (scratch) => {
  let server: TestServer;
  let db: Database;
  let now: number;
  const tokens = new Map<string, string>();
  const users = new Map<string, User>();

  async function userOf(email: string): Promise<User> {
    const found = users.get(email) ?? (await findUserByEmail(db, email));
    if (!found) throw new Error(`no user ${email}`);
    users.set(email, found);
    return found;
  }

  async function tokenOf(email: string): Promise<string> {
    const cached = tokens.get(email);
    if (cached) return cached;
    const token = await memberToken(db, server.siteA, await userOf(email));
    tokens.set(email, token);
    return token;
  }

  async function ask<T>(email: string, query: string, variables?: Record<string, unknown>): Promise<GraphQLResult<T>> {
    return gql<T>(server.siteA.origin, 'A', await tokenOf(email), query, variables);
  }

  async function meetingsOf(email: string, args = 'first: 50'): Promise<Connection<Meeting>> {
    const result = await ask<{ viewer: { consultingMeetings: Connection<Meeting> } }>(email, `{ viewer { consultingMeetings${args === '' ? '' : `(${args})`} { edges { cursor node { id } } nodes { ${MEETING_FIELDS} } ${PAGE_INFO} } } }`);
    expectNoErrors(result);
    return result.data!.viewer.consultingMeetings;
  }

  async function paymentsOf(email: string, args = 'first: 50', fields = PAYMENT_FIELDS): Promise<Connection<Payment>> {
    const result = await ask<{ viewer: { payments: Connection<Payment> } }>(email, `{ viewer { payments(${args}) { edges { cursor node { id } } nodes { ${fields} } ${PAGE_INFO} } } }`);
    expectNoErrors(result);
    return result.data!.viewer.payments;
  }

  async function notificationsOf(email: string, args = 'first: 50'): Promise<Connection<Notification>> {
    const result = await ask<{ viewer: { notifications: Connection<Notification> } }>(email, `{ viewer { notifications(${args}) { nodes { ${NOTIFICATION_FIELDS} } ${PAGE_INFO} } } }`);
    expectNoErrors(result);
    return result.data!.viewer.notifications;
  }

  async function meetingId(externalId: string, type: 'ConsultingMeeting' | 'ServiceMeeting' = 'ConsultingMeeting', siteId = server.siteA.id): Promise<string> {
    const row = (await db('meetings').where({ site_id: siteId, external_id: externalId }).first('id')) as { id: number } | undefined;
    if (!row) throw new Error(`no meeting ${externalId}`);
    return encodeNodeId(type, Number(row.id));
  }

  async function notificationId(externalId: string, siteId = server.siteA.id): Promise<string> {
    const row = (await db('notifications').where({ site_id: siteId, external_id: externalId }).first('id')) as { id: number } | undefined;
    if (!row) throw new Error(`no notification ${externalId}`);
    return encodeNodeId('Notification', Number(row.id));
  }

  before(async function () {
    this.timeout(120_000);
    db = scratch().db;
    server = await startTestServer(scratch(), { variant: 'A' });
    now = Date.now();
    await importSiteDocument(db, buildDemoDocument(server.siteA.origin, new Date(now)));
    await importSiteDocument(db, extraDocument(server.siteA.origin, now));
    await importSiteDocument(db, siteBDocument(server.siteB.origin, now));
  });

  after(async () => {
    await server?.stop();
  });

  describe('viewer.consultingMeetings', () => {
    it("lists the viewer's own seats and every meeting of the viewer's study group, canceled ones included, and nobody else's", async () => {
      const page = await meetingsOf(MIA);
      const expected = await Promise.all(
        ['mtg-pr-001', 'mtg-pr-003', 'mtg-oh-002', 'mtg-oh-live', 'mtg-oh-003', 'mtg-oh-005', 'grp-typo-past-3', 'grp-typo-past-2', 'grp-typo-past-1', 'grp-typo-next-0', 'grp-typo-next-1'].map((id) => meetingId(id)),
      );
      expect(page.nodes.map((node) => node.id)).to.have.members(expected);
      expect(page.totalCount).to.equal(11);
      for (const others of ['mtg-pr-002', 'mtg-pr-004', 'mtg-pr-005', 'mtg-pr-006', 'mtg-oh-001', 'mtg-oh-004']) {
        expect(page.nodes.map((node) => node.id)).not.to.include(await meetingId(others));
      }
      expect(page.nodes.map((node) => node.id), "Mia's seat at site B").not.to.include(await meetingId('b-mtg', 'ConsultingMeeting', server.siteB.id));
      const canceled = page.nodes.filter((node) => node.state === 'canceled');
      expect(canceled.map((node) => node.id)).to.have.members([await meetingId('mtg-oh-003'), await meetingId('grp-typo-past-3')]);
      const kinds = page.nodes.map((node) => node.kind);
      expect(kinds.filter((kind) => kind === 'STUDY_GROUP')).to.have.length(5);
      for (const node of page.nodes) {
        if (node.kind === 'STUDY_GROUP') {
          expect(node.studyGroup?.name).to.equal('Typography Critique Circle');
          expect(node.service).to.equal(null);
          expect(node.attendeesCount, 'roster size').to.equal(3);
          expect(node.state).to.be.oneOf(['available', 'canceled']);
        } else {
          expect(node.studyGroup).to.equal(null);
          expect(node.service?.title).to.be.oneOf(['Portfolio Review 1:1', 'Design Systems Office Hours']);
        }
      }
      const live = page.nodes.find((node) => node.id === expected[3]);
      expect(live?.attendeesCount, 'three seats on the live office hours').to.equal(3);
      const twoSeats = page.nodes.find((node) => node.id === expected[2]);
      expect(twoSeats?.attendeesCount).to.equal(2);
    });

    it('never lists a meeting whose seat the viewer canceled, nor another member’s seat; canceled seats are not counted', async () => {
      const page = await meetingsOf(EDGE);
      const ids = page.nodes.map((node) => node.id);
      expect(ids).to.have.members(await Promise.all(['x-edge-live', 'x-edge-live-canceled', 'x-edge-ended', 'x-edge-future'].map((id) => meetingId(id))));
      const live = page.nodes.find((node) => node.roomUrl !== '');
      expect(live?.attendeesCount, 'EDGE and OTHER; THIRD canceled').to.equal(2);
    });

    it('gives ConsultingMeeting ids that differ from the ServiceMeeting ids of the same meetings', async () => {
      const page = await meetingsOf(MIA);
      const serviceIds = await Promise.all(['mtg-pr-001', 'mtg-oh-live'].map((id) => meetingId(id, 'ServiceMeeting')));
      for (const id of serviceIds) expect(page.nodes.map((node) => node.id)).not.to.include(id);
      expect(new Set(page.nodes.map((node) => node.id)).size).to.equal(page.nodes.length);
    });

    it('orders newest start first (ties by id) and pages consistently in both directions', async () => {
      const page = await meetingsOf(MIA);
      const starts = page.nodes.map((node) => node.startedAt);
      expect(starts).to.deep.equal([...starts].sort((a, b) => b - a));
      for (const node of page.nodes) expect(Date.parse(node.startAt) / 1000).to.equal(node.startedAt);
      const first = await meetingsOf(MIA, 'first: 4');
      expect(first.nodes.map((node) => node.id)).to.deep.equal(page.nodes.slice(0, 4).map((node) => node.id));
      expect(first.pageInfo.hasNextPage).to.equal(true);
      expect(first.pageInfo.hasPreviousPage).to.equal(false);
      const second = await meetingsOf(MIA, `first: 4, after: "${first.pageInfo.endCursor}"`);
      expect(second.nodes.map((node) => node.id)).to.deep.equal(page.nodes.slice(4, 8).map((node) => node.id));
      expect(second.pageInfo.hasPreviousPage).to.equal(true);
      const back = await meetingsOf(MIA, `last: 4, before: "${second.pageInfo.startCursor}"`);
      expect(back.nodes.map((node) => node.id)).to.deep.equal(first.nodes.map((node) => node.id));
    });

    it('takes the next upcoming meeting with last: 1 over a startedAfter: now window', async () => {
      const all = await meetingsOf(MIA);
      const nowSeconds = Math.floor(Date.now() / 1000);
      const upcoming = all.nodes.filter((node) => node.startedAt > nowSeconds);
      const next = upcoming[upcoming.length - 1];
      expect(next, 'Mia has upcoming meetings').to.not.equal(undefined);
      const page = await meetingsOf(MIA, `last: 1, filter: { startedAfter: ${nowSeconds} }`);
      expect(page.nodes.map((node) => node.id)).to.deep.equal([next!.id]);
      expect(page.totalCount).to.equal(upcoming.length);
      expect(page.pageInfo.hasPreviousPage).to.equal(upcoming.length > 1);
      // The upcoming schedule without canceled meetings (docs/member-graphql.md).
      const scheduled = upcoming.filter((node) => node.state !== 'canceled');
      const nextLive = await meetingsOf(MIA, `last: 1, filter: { startedAfter: ${nowSeconds}, state: [available, scheduled] }`);
      expect(nextLive.nodes.map((node) => node.id)).to.deep.equal([scheduled[scheduled.length - 1]!.id]);
    });

    it('lists history with startedBefore, and filters by state', async () => {
      const all = await meetingsOf(MIA);
      const nowSeconds = Math.floor(Date.now() / 1000);
      const history = await meetingsOf(MIA, `first: 50, filter: { startedBefore: ${nowSeconds} }`);
      expect(history.nodes.map((node) => node.id)).to.deep.equal(all.nodes.filter((node) => node.startedAt < nowSeconds).map((node) => node.id));
      expect(history.nodes.some((node) => node.roomUrl !== ''), 'the live meeting started before now').to.equal(true);
      const canceled = await meetingsOf(MIA, 'first: 50, filter: { state: [canceled] }');
      expect(canceled.nodes.map((node) => node.state)).to.deep.equal(['canceled', 'canceled']);
      const scheduled = await meetingsOf(MIA, 'first: 50, filter: { state: [scheduled] }');
      expect(scheduled.nodes.map((node) => node.id)).to.have.members(await Promise.all(['mtg-pr-001', 'mtg-oh-002', 'mtg-oh-live'].map((id) => meetingId(id))));
      const none = await meetingsOf(MIA, 'first: 50, filter: { state: [] }');
      expect(none.nodes).to.deep.equal([]);
      expect(none.totalCount).to.equal(0);
      const window = await meetingsOf(MIA, `first: 50, filter: { startedAfter: ${nowSeconds - 8 * 86400}, startedBefore: ${nowSeconds + 8 * 86400} }`);
      expect(window.nodes.map((node) => node.id)).to.deep.equal(all.nodes.filter((node) => node.startedAt > nowSeconds - 8 * 86400 && node.startedAt < nowSeconds + 8 * 86400).map((node) => node.id));
    });

    it('refuses startedAfter later than startedBefore with BAD_USER_INPUT, and unknown states by enum validation', async () => {
      const inverted = await ask(MIA, '{ viewer { consultingMeetings(filter: { startedAfter: 2000, startedBefore: 1000 }) { totalCount } } }');
      expect(errorCodes(inverted)).to.deep.equal(['BAD_USER_INPUT']);
      expect(inverted.errors?.[0]?.message).to.match(/startedAfter/);
      const unknown = await ask(MIA, '{ viewer { consultingMeetings(filter: { state: [confirmed] }) { totalCount } } }');
      expect(unknown.errors?.length).to.be.greaterThan(0);
      expect(unknown.data ?? null).to.equal(null);
      const badCursor = await ask(MIA, '{ viewer { consultingMeetings(after: "nonsense") { totalCount } } }');
      expect(errorCodes(badCursor)).to.deep.equal(['BAD_USER_INPUT']);
      const negative = await ask(MIA, '{ viewer { consultingMeetings(first: -1) { totalCount } } }');
      expect(errorCodes(negative)).to.deep.equal(['BAD_USER_INPUT']);
    });

    it('gives roomUrl only while the meeting is live: not before, not after, not when canceled', async () => {
      const page = await meetingsOf(EDGE);
      const byId = new Map(page.nodes.map((node) => [node.id, node]));
      expect(byId.get(await meetingId('x-edge-live'))?.roomUrl).to.equal(EDGE_ROOM);
      expect(byId.get(await meetingId('x-edge-live-canceled'))?.roomUrl, 'canceled').to.equal('');
      expect(byId.get(await meetingId('x-edge-ended'))?.roomUrl, 'ended').to.equal('');
      expect(byId.get(await meetingId('x-edge-future'))?.roomUrl, 'not started').to.equal('');
      const asked = Date.now();
      const mia = await meetingsOf(MIA);
      const answered = Date.now();
      expect(mia.nodes.find((node) => node.roomUrl !== '' && node.roomUrl.endsWith('/oh-live')), 'the live office hours').to.not.equal(undefined);
      // The demo is relative to its seeding time, so a weekly meeting may happen to be live too: check every one by its times.
      for (const node of mia.nodes) {
        const start = Date.parse(node.startAt);
        const end = Date.parse(node.endAt);
        if (node.state === 'canceled' || end <= asked || start > answered) expect(node.roomUrl, node.id).to.equal('');
        else if (start <= asked && answered < end) expect(node.roomUrl, node.id).to.not.equal('');
      }
    });

    it('clamps pages to 50 (60 meetings) and pages on to the rest', async () => {
      const page = await meetingsOf(BULK, 'first: 100');
      expect(page.nodes).to.have.length(50);
      expect(page.totalCount).to.equal(60);
      expect(page.pageInfo.hasNextPage).to.equal(true);
      const rest = await meetingsOf(BULK, `first: 50, after: "${page.pageInfo.endCursor}"`);
      expect(rest.nodes).to.have.length(10);
      expect(rest.pageInfo.hasNextPage).to.equal(false);
      expect(new Set([...page.nodes, ...rest.nodes].map((node) => node.id)).size).to.equal(60);
      const last = await meetingsOf(BULK, 'last: 60');
      expect(last.nodes).to.have.length(50);
      expect(last.pageInfo.hasPreviousPage).to.equal(true);
      const defaults = await meetingsOf(BULK, '');
      expect(defaults.nodes).to.have.length(20);
    });
  });

  describe('viewer.payments', () => {
    it('lists one node per payment of the viewer, newest first: unpaid and expired included, the open abandoned checkout held back', async () => {
      const page = await paymentsOf(MIA);
      expect(page.nodes.map((node) => node.tradeNo)).to.deep.equal([
        'NWA-100201',
        'NWA-100190',
        'NWA-100176',
        'NWA-100153',
        'NWA-100152',
        'NWA-100143',
        'NWA-100160',
        'NWA-100117',
        'NWA-100188',
        'NWA-100101',
      ]);
      expect(page.totalCount).to.equal(10);
      const created = page.nodes.map((node) => Date.parse(node.createdAt));
      expect(created).to.deep.equal([...created].sort((a, b) => b - a));
      expect(page.nodes.map((node) => node.tradeNo), 'the abandoned checkout that has not expired').not.to.include('NWA-100205');
      expect(page.nodes.map((node) => node.tradeNo), 'site B').not.to.include('B-0001');
      expect(page.nodes.map((node) => node.paymentState)).to.include.members(['UNPAID', 'EXPIRED', 'FAILED', 'PAID']);
    });

    it('shows a retried checkout as two nodes with different tradeNo and ids', async () => {
      const page = await paymentsOf(MIA);
      const failed = page.nodes.find((node) => node.tradeNo === 'NWA-100152');
      const retried = page.nodes.find((node) => node.tradeNo === 'NWA-100153');
      expect(failed?.paymentState).to.equal('FAILED');
      expect(failed?.paymentType).to.equal('CREDIT_CARD');
      expect(retried?.paymentState).to.equal('PAID');
      expect(retried?.paymentType).to.equal('LINE_PAY');
      expect(failed?.id).to.not.equal(retried?.id);
      expect(failed?.lineitems).to.deep.equal(retried?.lineitems);
    });

    it('holds an abandoned checkout back while unpaid and lists it once expired', async () => {
      const mia = await paymentsOf(MIA);
      const expired = mia.nodes.find((node) => node.tradeNo === 'NWA-100143');
      expect(expired).to.include({ paymentType: null, paymentState: 'EXPIRED', paidAt: null, bankCode: null, codeNo: null });
      const edge = await paymentsOf(EDGE);
      const trades = edge.nodes.map((node) => node.tradeNo);
      expect(trades).not.to.include('X-EDGE-ABANDONED-OPEN');
      expect(trades).to.include.members(['X-EDGE-ABANDONED-LAPSED', 'X-EDGE-ABANDONED-CANCELED']);
      expect(edge.nodes.find((node) => node.tradeNo === 'X-EDGE-ABANDONED-LAPSED')?.paymentState, 'past its deadline').to.equal('EXPIRED');
      expect(edge.nodes.find((node) => node.tradeNo === 'X-EDGE-ABANDONED-CANCELED')?.paymentState).to.equal('CANCELED');
      expect(edge.totalCount).to.equal(5);
    });

    it('gives ATM and convenience-store instructions only for unpaid or expired payments', async () => {
      const mia = await paymentsOf(MIA);
      const atm = mia.nodes.find((node) => node.tradeNo === 'NWA-100201')!;
      expect(atm).to.include({ paymentType: 'ATM', paymentState: 'UNPAID', bankCode: '822', bankName: 'CTBC Bank', codeNo: '9103522850012345', paidAt: null });
      expect(Date.parse(atm.expiredAt!)).to.be.greaterThan(Date.now());
      const cvs = mia.nodes.find((node) => node.tradeNo === 'NWA-100176')!;
      expect(cvs).to.include({ paymentType: 'CVS', paymentState: 'EXPIRED', bankCode: null, bankName: null, codeNo: 'LLL24110800123' });
      expect(Date.parse(cvs.expiredAt!)).to.be.lessThan(Date.now());
      for (const paid of mia.nodes.filter((node) => node.paymentState === 'PAID')) {
        expect(paid, paid.tradeNo).to.include({ bankCode: null, bankName: null, codeNo: null, expiredAt: null });
      }
      const edge = await paymentsOf(EDGE);
      const byTrade = new Map(edge.nodes.map((node) => [node.tradeNo, node]));
      expect(byTrade.get('X-EDGE-ATM-PAID')).to.include({ paymentType: 'ATM', paymentState: 'PAID', bankCode: null, bankName: null, codeNo: null, expiredAt: null });
      expect(byTrade.get('X-EDGE-ATM-LAPSED')).to.include({ paymentType: 'ATM', paymentState: 'EXPIRED', bankCode: '812', bankName: 'Taishin', codeNo: '000222' });
      expect(byTrade.get('X-EDGE-CVS-UNPAID')).to.include({ paymentType: 'CVS', paymentState: 'UNPAID', bankCode: null, bankName: null, codeNo: 'CVS-333' });
      expect(byTrade.get('X-EDGE-CVS-UNPAID')?.expiredAt).to.be.a('string');
    });

    it('carries every field group: amounts, adjustments, line items, invoice, installment, refund set', async () => {
      const page = await paymentsOf(MIA);
      const byTrade = new Map(page.nodes.map((node) => [node.tradeNo, node]));
      const coupon = byTrade.get('NWA-100101')!;
      expect(coupon).to.include({ amount: 324_000, currency: 'TWD', paymentType: 'CREDIT_CARD', paymentState: 'PAID', refundingState: 'NONE', refundedAmount: 0, refundedAt: null, refundRequestedAt: null, installment: null });
      expect(coupon.paidAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(coupon.adjustments).to.deep.equal([{ kind: 'COUPON', code: 'WELCOME10', title: 'Welcome 10% off', amount: -36_000 }]);
      const courseRow = (await db('courses').where({ site_id: server.siteA.id, external_id: 'crs-typo' }).first('id')) as { id: number };
      expect(coupon.lineitems).to.deep.equal([
        { title: 'Foundations of Typography', kind: 'COURSE', quantity: 1, unitAmount: 360_000, amount: 360_000, productId: encodeNodeId('Course', Number(courseRow.id)) },
      ]);
      expect(coupon.invoice).to.include({ number: 'AB-10010101', type: 'PERSONAL', title: null, taxId: null, status: 'ISSUED' });
      expect(coupon.invoice?.issuedAt).to.be.a('string');

      const installments = byTrade.get('NWA-100117')!;
      expect(installments.installment).to.deep.equal({ count: 3, firstInstallmentAmount: 160_000, perInstallmentAmount: 160_000 });
      expect(installments.invoice).to.include({ type: 'COMPANY', title: 'Chen Studio Ltd.', taxId: '24536806', status: 'ISSUED' });

      const refunded = byTrade.get('NWA-100188')!;
      expect(refunded).to.include({ refundingState: 'REFUNDED', refundedAmount: 120_000 });
      expect(refunded.refundedAt).to.be.a('string');
      expect(refunded.refundRequestedAt).to.be.a('string');
      expect(refunded.invoice?.status).to.equal('VOIDED');
      expect(refunded.lineitems[0]?.kind).to.equal('DIGITAL_PRODUCT');

      const partial = byTrade.get('NWA-100190')!;
      expect(partial).to.include({ paymentType: 'GOOGLE_PAY', refundingState: 'PARTIALLY_REFUNDED', refundedAmount: 50_000, amount: 100_000 });
      expect(partial.lineitems[0]).to.include({ kind: 'EVENT', quantity: 2, unitAmount: 50_000, amount: 100_000 });
      expect(partial.lineitems[0]?.productId).to.be.a('string');

      expect(byTrade.get('NWA-100160')?.lineitems[0]).to.include({ kind: 'CONSULTING_SERVICE' });
      expect(byTrade.get('NWA-100160')?.paymentType).to.equal('APPLE_PAY');
      const membership = byTrade.get('NWA-100201')!;
      expect(membership.lineitems[0]).to.include({ kind: 'MEMBERSHIP_PLAN', productId: null });
      expect(membership.invoice).to.include({ number: null, status: 'PENDING', issuedAt: null });
      expect(byTrade.get('NWA-100176')?.invoice).to.equal(null);
      expect(byTrade.get('NWA-100176')?.adjustments).to.deep.equal([]);
      for (const node of page.nodes) {
        const lines = node.lineitems.reduce((sum, line) => sum + line.amount, 0);
        const adjustments = node.adjustments.reduce((sum, adjustment) => sum + adjustment.amount, 0);
        expect(lines + adjustments, node.tradeNo).to.equal(node.amount);
      }
    });

    it('clamps pages to 50 (60 payments) and pages on to the rest', async () => {
      // Few fields: the endpoint's cost estimate counts the requested page size, not the clamped one.
      const page = await paymentsOf(BULK, 'first: 80', 'id tradeNo');
      expect(page.nodes).to.have.length(50);
      expect(page.totalCount).to.equal(60);
      expect(page.nodes[0]?.tradeNo).to.equal('X-BULK-000');
      const rest = await paymentsOf(BULK, `first: 50, after: "${page.pageInfo.endCursor}"`, 'id tradeNo');
      expect(rest.nodes.map((node) => node.tradeNo)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `X-BULK-${String(50 + i).padStart(3, '0')}`));
      const last = await paymentsOf(BULK, 'last: 99', 'id tradeNo');
      expect(last.nodes).to.have.length(50);
      expect(last.nodes[49]?.tradeNo).to.equal('X-BULK-059');
    });
  });

  describe('bounded work', () => {
    // Every batched field once (every loader), with few scalars to stay under the endpoint's cost limit.
    const FULL = `{ viewer {
      consultingMeetings(first: 50) { nodes { ${MEETING_FIELDS} } totalCount }
      payments(first: 50) { nodes { tradeNo paymentState adjustments { amount } invoice { status } lineitems { productId } } totalCount }
      notifications(first: 50) { nodes { ${NOTIFICATION_FIELDS} } totalCount }
      unreadNotificationCount
      notificationSubscriptions { kind channel enabled }
    } }`;

    async function queriesFor(email: string): Promise<number> {
      await ask(email, FULL); // the first use of a token may record it; measure a later request
      let count = 0;
      const listener = () => {
        count += 1;
      };
      db.on('query', listener);
      try {
        const result = await ask<{ viewer: { consultingMeetings: { nodes: unknown[] }; payments: { nodes: unknown[] } } }>(email, FULL);
        expectNoErrors(result);
      } finally {
        db.removeListener('query', listener);
      }
      return count;
    }

    it('costs the same number of SQL queries for 3 as for 60 meetings and payments', async () => {
      const small = await queriesFor(SMALL);
      const bulk = await queriesFor(BULK);
      expect(bulk).to.equal(small);
      expect(small).to.be.lessThan(30);
      expect(small).to.be.greaterThan(5);
    });
  });

  describe('notifications', () => {
    it('lists the inbox newest first with kinds, read state and filters', async () => {
      const page = await notificationsOf(MIA);
      expect(page.totalCount).to.equal(9);
      const created = page.nodes.map((node) => Date.parse(node.createdAt));
      expect(created).to.deep.equal([...created].sort((a, b) => b - a));
      expect(page.nodes[0]).to.include({ kind: 'MEETING', title: 'Design Systems Office Hours start in 15 minutes', body: '', isRead: false, readAt: null });
      expect(page.nodes.map((node) => node.title)).not.to.include('Beta news');
      expect(page.nodes.map((node) => node.kind)).to.include.members(['MEETING', 'PAYMENT', 'EVENT', 'COURSE_UPDATE', 'LECTURE_UNLOCKED', 'ANNOUNCEMENT']);
      for (const node of page.nodes) expect(node.isRead).to.equal(node.readAt !== null);
      const unread = await notificationsOf(MIA, 'first: 50, filter: { unreadOnly: true }');
      expect(unread.totalCount).to.equal(4);
      const payments = await notificationsOf(MIA, 'first: 50, filter: { kind: [PAYMENT] }');
      expect(payments.nodes.map((node) => node.kind)).to.deep.equal(['PAYMENT', 'PAYMENT']);
      const meetings = await notificationsOf(MIA, 'first: 50, filter: { kind: [MEETING], unreadOnly: true }');
      expect(meetings.totalCount).to.equal(2);
      const nothing = await notificationsOf(MIA, 'first: 50, filter: { kind: [] }');
      expect(nothing.totalCount).to.equal(0);
      const two = await notificationsOf(MIA, 'first: 2');
      expect(two.nodes.map((node) => node.id)).to.deep.equal(page.nodes.slice(0, 2).map((node) => node.id));
      expect(two.pageInfo.hasNextPage).to.equal(true);
    });

    it('counts unread notifications and reports every kind × channel preference with stored values or the default', async () => {
      const result = await ask<{ viewer: { unreadNotificationCount: number; notificationSubscriptions: Subscription[] } }>(MIA, '{ viewer { unreadNotificationCount notificationSubscriptions { kind channel enabled } } }');
      expectNoErrors(result);
      expect(result.data!.viewer.unreadNotificationCount).to.equal(4);
      const subscriptions = result.data!.viewer.notificationSubscriptions;
      const kinds = ['ANNOUNCEMENT', 'COURSE_UPDATE', 'LECTURE_UNLOCKED', 'COMMENT_REPLY', 'MEETING', 'EVENT', 'PAYMENT', 'SYSTEM'];
      const channels = ['IN_APP', 'EMAIL', 'PUSH'];
      expect(subscriptions.map((entry) => `${entry.kind}/${entry.channel}`)).to.deep.equal(kinds.flatMap((kind) => channels.map((channel) => `${kind}/${channel}`)));
      const disabled = subscriptions.filter((entry) => !entry.enabled).map((entry) => `${entry.kind}/${entry.channel}`);
      expect(disabled).to.have.members(['LECTURE_UNLOCKED/PUSH', 'ANNOUNCEMENT/EMAIL']);
    });

    it('markNotificationRead is idempotent and keeps the first readAt', async () => {
      const id = await notificationId('ntf-mia-003');
      const mutation = `mutation($id: ID!) { markNotificationRead(id: $id) { notification { ${NOTIFICATION_FIELDS} } unreadNotificationCount } }`;
      type Payload = { markNotificationRead: { notification: Notification; unreadNotificationCount: number } };
      const first = await ask<Payload>(MIA, mutation, { id });
      expectNoErrors(first);
      const marked = first.data!.markNotificationRead;
      expect(marked.notification).to.include({ id, isRead: true, kind: 'PAYMENT' });
      expect(marked.unreadNotificationCount).to.equal(3);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const again = await ask<Payload>(MIA, mutation, { id });
      expectNoErrors(again);
      expect(again.data!.markNotificationRead.notification.readAt).to.equal(marked.notification.readAt);
      expect(again.data!.markNotificationRead.unreadNotificationCount).to.equal(3);
      const alreadyRead = await ask<Payload>(MIA, mutation, { id: await notificationId('ntf-mia-005') });
      expectNoErrors(alreadyRead);
      const demoReadAt = new Date(now - (now % MINUTE) - DAY + HOUR).toISOString().replace(/\.\d{3}Z$/, 'Z');
      expect(alreadyRead.data!.markNotificationRead.notification.readAt, 'the readAt imported with the demo').to.equal(demoReadAt);
    });

    it("answers NOT_FOUND for another member's, an unknown or a malformed notification id, and changes nothing", async () => {
      const noahsId = await notificationId('ntf-noah-001');
      const mutation = 'mutation($id: ID!) { markNotificationRead(id: $id) { unreadNotificationCount } }';
      for (const id of [noahsId, encodeNodeId('Notification', 999_999), 'not-an-id', encodeNodeId('Payment', 1), await notificationId('b-ntf', server.siteB.id)]) {
        const result = await ask(MIA, mutation, { id });
        expect(result.status).to.equal(200);
        expect(errorCodes(result), id).to.deep.equal(['NOT_FOUND']);
        expect(result.data ?? null).to.equal(null);
      }
      const noah = (await db('notifications').where({ site_id: server.siteA.id, external_id: 'ntf-noah-001' }).first('read_at')) as { read_at: unknown };
      expect(noah.read_at).to.equal(null);
    });

    it('markAllNotificationsRead respects createdAtOrBefore, is idempotent and leaves other members alone', async () => {
      type Payload = { markAllNotificationsRead: { markedCount: number; unreadNotificationCount: number } };
      const before = await notificationsOf(MIA, 'first: 50, filter: { unreadOnly: true }');
      expect(before.totalCount).to.equal(3);
      // The client saw everything up to the second-newest unread notification; the newest must stay unread.
      const cutoff = before.nodes[1]!.createdAt;
      const partial = await ask<Payload>(MIA, 'mutation($at: DateTime) { markAllNotificationsRead(input: { createdAtOrBefore: $at }) { markedCount unreadNotificationCount } }', { at: cutoff });
      expectNoErrors(partial);
      expect(partial.data!.markAllNotificationsRead).to.deep.equal({ markedCount: 2, unreadNotificationCount: 1 });
      const still = await notificationsOf(MIA, 'first: 50, filter: { unreadOnly: true }');
      expect(still.nodes.map((node) => node.id)).to.deep.equal([before.nodes[0]!.id]);
      const all = await ask<Payload>(MIA, 'mutation { markAllNotificationsRead { markedCount unreadNotificationCount } }');
      expectNoErrors(all);
      expect(all.data!.markAllNotificationsRead).to.deep.equal({ markedCount: 1, unreadNotificationCount: 0 });
      const again = await ask<Payload>(MIA, 'mutation { markAllNotificationsRead(input: {}) { markedCount unreadNotificationCount } }');
      expect(again.data!.markAllNotificationsRead).to.deep.equal({ markedCount: 0, unreadNotificationCount: 0 });
      const noah = await ask<{ viewer: { unreadNotificationCount: number } }>(NOAH, '{ viewer { unreadNotificationCount } }');
      expect(noah.data!.viewer.unreadNotificationCount).to.equal(2);
      const siteB = (await db('notifications').where({ site_id: server.siteB.id, external_id: 'b-ntf' }).first('read_at')) as { read_at: unknown };
      expect(siteB.read_at, "Mia's notification at site B").to.equal(null);
    });

    it('updateNotificationSubscription upserts one preference, idempotently, and only for the viewer', async () => {
      type Payload = { updateNotificationSubscription: { subscription: Subscription } };
      const mutation = 'mutation($input: UpdateNotificationSubscriptionInput!) { updateNotificationSubscription(input: $input) { subscription { kind channel enabled } } }';
      const read = async (email: string) => {
        const result = await ask<{ viewer: { notificationSubscriptions: Subscription[] } }>(email, '{ viewer { notificationSubscriptions { kind channel enabled } } }');
        expectNoErrors(result);
        return new Map(result.data!.viewer.notificationSubscriptions.map((entry) => [`${entry.kind}/${entry.channel}`, entry.enabled]));
      };
      const noahBefore = await read(NOAH);
      for (let round = 0; round < 2; round += 1) {
        const off = await ask<Payload>(MIA, mutation, { input: { kind: 'MEETING', channel: 'PUSH', enabled: false } });
        expectNoErrors(off);
        expect(off.data!.updateNotificationSubscription.subscription).to.deep.equal({ kind: 'MEETING', channel: 'PUSH', enabled: false });
        expect((await read(MIA)).get('MEETING/PUSH')).to.equal(false);
      }
      const on = await ask<Payload>(MIA, mutation, { input: { kind: 'LECTURE_UNLOCKED', channel: 'PUSH', enabled: true } });
      expectNoErrors(on);
      const comment = await ask<Payload>(MIA, mutation, { input: { kind: 'COMMENT_REPLY', channel: 'EMAIL', enabled: false } });
      expectNoErrors(comment);
      const after = await read(MIA);
      expect(after.get('LECTURE_UNLOCKED/PUSH')).to.equal(true);
      expect(after.get('COMMENT_REPLY/EMAIL')).to.equal(false);
      expect(after.get('MEETING/EMAIL')).to.equal(true);
      const mia = await userOf(MIA);
      const rows = (await db('notification_subscriptions').where({ site_id: server.siteA.id, user_id: mia.id, channel: 'push' }).whereIn('kind', ['meeting_reminder', 'meeting_changed']).select('kind', 'enabled')) as Array<{ kind: string; enabled: unknown }>;
      expect(rows.map((row) => [row.kind, Boolean(Number(row.enabled))]).sort()).to.deep.equal([
        ['meeting_changed', false],
        ['meeting_reminder', false],
      ]);
      expect(await read(NOAH)).to.deep.equal(noahBefore);
    });

    it('needs account:write for the mutations: a read-only token gets an errors entry', async () => {
      const readOnly = await memberToken(db, server.siteA, await userOf(NOAH), 'account:read');
      const result = await gql(server.siteA.origin, 'A', readOnly, 'mutation { markAllNotificationsRead { markedCount } }');
      expect(result.status).to.equal(200);
      expect(errorCodes(result)).to.deep.equal(['INSUFFICIENT_SCOPE']);
      const noah = await ask<{ viewer: { unreadNotificationCount: number } }>(NOAH, '{ viewer { unreadNotificationCount } }');
      expect(noah.data!.viewer.unreadNotificationCount).to.equal(2);
    });
  });
});
