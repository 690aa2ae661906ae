import type { Knex } from 'knex';
import type { Database } from '../db/connection.js';
import { moneyOf, numberOf } from '../commerce/common.js';
import type { Money } from '../shared/money.js';
import { paymentFromRow, type PaymentRow, type PaymentState } from '../member/payments.js';

/**
 * The site's summary figures over a window [from, to) (admin API `GET /analytics/summary`; docs/admin-commerce.md).
 * Set-based: a fixed number of aggregate queries (seven) whatever the size of the data, the same SQL on both stores.
 * Payment states are derived as the member API derives them (src/member/payments.ts): an unpaid payment past its
 * deadline counts as expired.
 */

export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 366;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface AnalyticsWindow {
  from: Date;
  to: Date;
}

/** A problem with one query parameter of the window. */
export interface WindowProblem {
  parameter: 'from' | 'to';
  message: string;
}

/** The window the parameters name (defaults: the 30 days up to now), or the problems with them. */
export function resolveWindow(from: string | undefined, to: string | undefined, now: Date): AnalyticsWindow | WindowProblem[] {
  const end = to === undefined ? now : new Date(to);
  const start = from === undefined ? new Date(end.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS) : new Date(from);
  if (end.getTime() <= start.getTime()) return [{ parameter: 'to', message: 'must be after from' }];
  if (end.getTime() - start.getTime() > MAX_WINDOW_DAYS * DAY_MS) return [{ parameter: 'to', message: `must be at most ${MAX_WINDOW_DAYS} days after from` }];
  return { from: start, to: end };
}

export type OrderStateCounts = Record<Lowercase<PaymentState>, number>;

export interface Revenue {
  gross: Money;
  refunded: Money;
  net: Money;
}

export interface TopCourse {
  courseId: number;
  title: string;
  slug: string;
  newEnrollments: number;
}

export interface AnalyticsSummary {
  from: Date;
  to: Date;
  generatedAt: Date;
  members: { total: number; new: number };
  courses: { published: number };
  enrollments: { total: number; new: number; active: number };
  lectureCompletions: number;
  ordersByState: OrderStateCounts;
  revenue: Revenue[];
  topCourses: TopCourse[];
}

type Row = Record<string, unknown>;

async function one(query: Knex.QueryBuilder | Knex.Raw): Promise<Row> {
  const rows = (await query) as Row[];
  return rows[0] ?? {};
}

/** `CASE WHEN column in [from, to) THEN then ELSE 0 END`, for conditional sums. */
function inWindow(db: Database, column: string, window: AnalyticsWindow, then = '1'): Knex.Raw {
  return db.raw(`case when ?? >= ? and ?? < ? then ${then} else 0 end`, [column, window.from, column, window.to]);
}

export async function analyticsSummary(db: Database, siteId: number, window: AnalyticsWindow, now = new Date()): Promise<AnalyticsSummary> {
  // 1. Members: people with a role at the site; they joined when their first role was granted.
  const firstRoles = db('site_roles').where('site_id', siteId).groupBy('user_id').select('user_id').min({ joined_at: 'created_at' }).as('m');
  const members = await one(
    db
      .from(firstRoles)
      .count({ total: '*' })
      .sum({ fresh: inWindow(db, 'm.joined_at', window) }),
  );

  // 2. Published courses.
  const courses = await one(db('courses').where({ site_id: siteId, status: 'published' }).count({ published: '*' }));

  // 3. Enrollments: all, started in the window, with access now (lifetime, no end, or an end still ahead).
  const enrollments = await one(
    db('enrollments')
      .where('site_id', siteId)
      .count({ total: '*' })
      .sum({ fresh: inWindow(db, 'enrolled_at', window) })
      .sum({ active: db.raw('case when has_lifetime_access <> 0 or expires_at is null or expires_at > ? then 1 else 0 end', [now]) }),
  );

  // 4. Lecture completions in the window.
  const completions = await one(
    db('lecture_progress')
      .join('courses', 'courses.id', 'lecture_progress.course_id')
      .where('courses.site_id', siteId)
      .andWhere('lecture_progress.state', 'completed')
      .andWhere('lecture_progress.completed_at', '>=', window.from)
      .andWhere('lecture_progress.completed_at', '<', window.to)
      .count({ completed: '*' }),
  );

  // 5. Orders created in the window by stored state and whether the deadline has passed; derived in code below.
  const stateRows = (await db('payments')
    .where('site_id', siteId)
    .andWhere('created_at', '>=', window.from)
    .andWhere('created_at', '<', window.to)
    .groupBy('payment_state', db.raw('case when expired_at is not null and expired_at <= ? then 1 else 0 end', [now]))
    .select('payment_state', db.raw('max(expired_at) as expired_at'))
    .count({ orders: '*' })) as Row[];
  const ordersByState: OrderStateCounts = { unpaid: 0, paid: 0, expired: 0, failed: 0, canceled: 0 };
  for (const row of stateRows) {
    // One representative row per group: the group's deadline status decides unpaid vs expired exactly as for one payment.
    const state = paymentFromRow({ ...minimalPayment, payment_state: String(row.payment_state), expired_at: row.expired_at } as PaymentRow, now).paymentState;
    ordersByState[state.toLowerCase() as Lowercase<PaymentState>] += numberOf(row.orders);
  }

  // 6. Revenue per currency: paid payments counted when paid (their creation when no payment time was recorded),
  //    refunds of paid payments when refunded (else when paid).
  const paid = "lower(payment_state) = 'paid'";
  const revenueRows = (await db('payments')
    .where('site_id', siteId)
    .groupBy('currency')
    .orderBy('currency')
    .select('currency')
    .sum({ gross: db.raw(`case when ${paid} and coalesce(paid_at, created_at) >= ? and coalesce(paid_at, created_at) < ? then amount else 0 end`, [window.from, window.to]) })
    .sum({
      refunded: db.raw(`case when ${paid} and coalesce(refunded_at, paid_at, created_at) >= ? and coalesce(refunded_at, paid_at, created_at) < ? then refunded_amount else 0 end`, [window.from, window.to]),
    })) as Row[];
  const revenue = revenueRows
    .map((row) => ({ currency: String(row.currency), gross: numberOf(row.gross), refunded: numberOf(row.refunded) }))
    .filter((row) => row.gross !== 0 || row.refunded !== 0)
    .map((row) => ({ gross: moneyOf(row.gross, row.currency), refunded: moneyOf(row.refunded, row.currency), net: moneyOf(row.gross - row.refunded, row.currency) }));

  // 7. Top five courses by enrollments that started in the window.
  const topRows = (await db('enrollments')
    .join('courses', 'courses.id', 'enrollments.course_id')
    .where('enrollments.site_id', siteId)
    .andWhere('courses.site_id', siteId)
    .andWhere('enrollments.enrolled_at', '>=', window.from)
    .andWhere('enrollments.enrolled_at', '<', window.to)
    .groupBy('courses.id', 'courses.title', 'courses.slug')
    .select('courses.id as course_id', 'courses.title as title', 'courses.slug as slug')
    .count({ enrollments: '*' })
    .orderBy([
      { column: 'enrollments', order: 'desc' },
      { column: 'course_id', order: 'asc' },
    ])
    .limit(5)) as Row[];

  return {
    from: window.from,
    to: window.to,
    generatedAt: now,
    members: { total: numberOf(members.total), new: numberOf(members.fresh) },
    courses: { published: numberOf(courses.published) },
    enrollments: { total: numberOf(enrollments.total), new: numberOf(enrollments.fresh), active: numberOf(enrollments.active) },
    lectureCompletions: numberOf(completions.completed),
    ordersByState,
    revenue,
    topCourses: topRows.map((row) => ({ courseId: numberOf(row.course_id), title: String(row.title), slug: String(row.slug), newEnrollments: numberOf(row.enrollments) })),
  };
}

/** The columns paymentFromRow needs besides the state and deadline, for deriving a group's state. */
const minimalPayment: PaymentRow = {
  id: 1,
  trade_no: '',
  amount: 0,
  currency: 'XXX',
  payment_type: null,
  payment_state: 'unpaid',
  paid_at: null,
  bank_code: null,
  bank_name: null,
  code_no: null,
  expired_at: null,
  installment_count: null,
  installment_amount: null,
  refunding_state: 'none',
  refunded_amount: 0,
  refunded_at: null,
  refund_requested_at: null,
  created_at: 0,
};
