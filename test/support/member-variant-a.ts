import { expect } from 'chai';
import { findUserByEmail, type User } from '../../src/accounts/users.js';
import type { Database } from '../../src/db/connection.js';
import { buildDemoDocument, DEMO_LOGINS } from '../../src/demo/demo-school.js';
import type { ConsultingMeetingInput, ImportDocument, PaymentInput, StudyGroupMeetingInput } from '../../src/import/document.js';
import { importSiteDocument } from '../../src/import/import-site.js';
import { encodeNodeId } from '../../src/member/ids.js';
import type { ScratchDatabase } from './databases.js';
import { gql, memberToken, type GraphQLResult } from './member-api.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * Variant A's member fields over HTTP (/member/graphql): viewer.consultingMeetings, viewer.payments, the notification
 * inbox and the three notification mutations (spec: "Consulting", "Payment node", "Meeting state", "GraphQL
 * operations on the member API", "Limits"). Data: the demo school (Mia, docs/demo.md) plus an import document with
 * edge cases and bulk rows.
 */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const MIA = DEMO_LOGINS.member.email;
export const NOAH = 'noah.kim@example.com';
export const SMALL = 'small.member@example.com';
export const BULK = 'bulk.member@example.com';
export const EDGE = 'edge.member@example.com';
export const OTHER = 'other.member@example.com';
export const THIRD = 'third.member@example.com';

export const EDGE_ROOM = 'https://meet.example/r/edge-live';

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Meeting {
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

export interface Connection<T> {
  edges: Array<{ cursor: string; node: T }>;
  nodes: T[];
  pageInfo: PageInfo;
  totalCount: number;
}

export interface Payment {
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

export interface Notification {
  id: string;
  kind: string;
  title: string;
  body: string;
  url: string | null;
  createdAt: string;
  readAt: string | null;
  isRead: boolean;
}

export interface Subscription {
  kind: string;
  channel: string;
  enabled: boolean;
}

export const MEETING_FIELDS = 'id kind state startAt startedAt endAt roomUrl attendeesCount service { id title } studyGroup { id name }';
export const PAYMENT_FIELDS = `id tradeNo amount currency paymentType paidAt paymentState
  adjustments { kind code title amount }
  invoice { number type title taxId status issuedAt }
  lineitems { title kind quantity unitAmount amount productId }
  installment { count firstInstallmentAmount perInstallmentAmount }
  refundingState refundedAmount refundedAt refundRequestedAt
  bankCode bankName codeNo expiredAt createdAt`;
export const NOTIFICATION_FIELDS = 'id kind title body url createdAt readAt isRead';
export const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount';

export const iso = (ms: number): string => new Date(ms).toISOString();

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

export function expectNoErrors(result: GraphQLResult<unknown>): void {
  expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
  expect(result.status).to.equal(200);
}

export function errorCodes(result: GraphQLResult<unknown>): unknown[] {
  return (result.errors ?? []).map((error) => error.extensions?.code);
}

export interface VariantASchool {
  readonly server: TestServer;
  readonly db: Database;
  /** When the suite's data was imported: the times of the edge cases are relative to it. */
  readonly now: number;
  userOf(email: string): Promise<User>;
  /** A member token of `email` at site A with every member scope (one per member, issued on first use). */
  tokenOf(email: string): Promise<string>;
  ask<T>(email: string, query: string, variables?: Record<string, unknown>): Promise<GraphQLResult<T>>;
  meetingsOf(email: string, args?: string): Promise<Connection<Meeting>>;
  paymentsOf(email: string, args?: string, fields?: string): Promise<Connection<Payment>>;
  notificationsOf(email: string, args?: string): Promise<Connection<Notification>>;
  /** The node id of an imported meeting, by its external id. */
  meetingId(externalId: string, type?: 'ConsultingMeeting' | 'ServiceMeeting', siteId?: number): Promise<string>;
  notificationId(externalId: string, siteId?: number): Promise<string>;
}

/** Declares a variant A server on the suite's scratch database with the demo school, the edge cases and site B. */
export function useVariantASchool(scratch: () => ScratchDatabase): VariantASchool {
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

  return {
    get server() {
      return server;
    },
    get db() {
      return db;
    },
    get now() {
      return now;
    },
    userOf,
    tokenOf,
    ask,
    meetingsOf,
    paymentsOf,
    notificationsOf,
    meetingId,
    notificationId,
  };
}
