import { expect } from 'chai';
import type { Database } from '../src/db/connection.js';
import type { Site } from '../src/sites/sites.js';
import type { AdminApi, Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser } from './support/oauth-fixtures.js';

type Order = Schemas['Order'];
type OrderList = Schemas['OrderList'];
type Summary = Schemas['AnalyticsSummary'];

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

async function insert(db: Database, table: string, row: Record<string, unknown>): Promise<number> {
  const [id] = await db(table).insert(row);
  return Number(id);
}

/** Seeds one site's catalogue, enrollments, progress and payments with direct inserts; times relative to `now`. */
async function seed(db: Database, site: Site, now: number) {
  const at = (offset: number) => new Date(now + offset);
  const stamps = (offset = -100 * DAY) => ({ created_at: at(offset), updated_at: at(offset) });
  const mia = await makeUser(db, site, [], 'Mia Member');
  const leo = await makeUser(db, site, [], 'Leo Learner');
  await db('site_roles').insert({ site_id: site.id, user_id: mia.id, role: 'student', created_at: at(-100 * DAY) });
  await db('site_roles').insert({ site_id: site.id, user_id: leo.id, role: 'student', created_at: at(-10 * DAY) });
  await db('site_roles').insert({ site_id: site.id, user_id: leo.id, role: 'lecturer', created_at: at(-1 * DAY) });
  const course = (slug: string, status: string) => insert(db, 'courses', { site_id: site.id, slug, title: `Course ${slug}`, status, ...stamps() });
  const c1 = await course('typography', 'published');
  const c2 = await course('color', 'published');
  await course('draft-one', 'draft');
  const section = await insert(db, 'course_sections', { course_id: c1, title: 'Intro', position: 0, ...stamps() });
  const l1 = await insert(db, 'lectures', { section_id: section, course_id: c1, title: 'L1', position: 0, ...stamps() });
  const l2 = await insert(db, 'lectures', { section_id: section, course_id: c1, title: 'L2', position: 1, ...stamps() });
  const enroll = (courseId: number, userId: number, enrolled: number, expires: number | null, lifetime: boolean) =>
    insert(db, 'enrollments', { site_id: site.id, course_id: courseId, user_id: userId, enrolled_at: at(enrolled), expires_at: expires === null ? null : at(expires), has_lifetime_access: lifetime, source: 'purchase', ...stamps(enrolled) });
  await enroll(c1, mia.id, -5 * DAY, null, true);
  await enroll(c1, leo.id, -3 * DAY, -1 * DAY, false);
  await enroll(c2, leo.id, -50 * DAY, null, false);
  await enroll(c2, mia.id, -2 * DAY, 10 * DAY, false);
  const progress = (userId: number, lectureId: number, state: string, completed: number | null) =>
    insert(db, 'lecture_progress', { user_id: userId, lecture_id: lectureId, course_id: c1, state, completed_at: completed === null ? null : at(completed), ...stamps() });
  await progress(mia.id, l1, 'completed', -2 * DAY);
  await progress(mia.id, l2, 'completed', -40 * DAY);
  await progress(leo.id, l1, 'read', null);
  const coupon = await insert(db, 'coupons', { site_id: site.id, code: 'WELCOME10', discount_kind: 'percent', percent_off: 10, active: true, ...stamps() });
  const product = await insert(db, 'digital_products', { site_id: site.id, slug: 'audio-series', title: 'Audio series', kind: 'audio', status: 'published', ...stamps() });
  let trade = 0;
  const payment = (userId: number, amount: number, currency: string, type: string | null, state: string, created: number, extra: Record<string, unknown> = {}) =>
    insert(db, 'payments', { site_id: site.id, user_id: userId, trade_no: `T-${site.id}-${++trade}`, amount, currency, payment_type: type, payment_state: state, ...stamps(created), ...extra });
  const p1 = await payment(mia.id, 3240, 'TWD', 'credit_card', 'paid', -5 * DAY, { paid_at: at(-5 * DAY + HOUR) });
  await db('payment_line_items').insert({ payment_id: p1, position: 0, item_kind: 'course', item_id: c1, title: 'Typography', quantity: 1, unit_amount: 3600, amount: 3600 });
  await db('payment_adjustments').insert({ payment_id: p1, position: 0, kind: 'coupon', code: 'WELCOME10', title: 'Welcome 10% off', amount: -360, coupon_id: coupon });
  await db('payment_invoices').insert({ payment_id: p1, invoice_no: 'AB-1', kind: 'company', title: 'Chen Studio Ltd.', tax_id: '24536806', status: 'issued', issued_at: at(-5 * DAY + 2 * HOUR) });
  const p2 = await payment(mia.id, 1200, 'TWD', 'credit_card', 'paid', -4 * DAY, {
    paid_at: at(-4 * DAY),
    refunding_state: 'refunded',
    refunded_amount: 1200,
    refund_requested_at: at(-3 * DAY),
    refunded_at: at(-2 * DAY),
  });
  await db('payment_line_items').insert({ payment_id: p2, position: 0, item_kind: 'digital_product', item_id: product, title: 'Audio series', quantity: 1, unit_amount: 1200, amount: 1200 });
  await db('payment_line_items').insert({ payment_id: p2, position: 1, item_kind: 'course', item_id: 999999, title: 'Deleted course', quantity: 1, unit_amount: 0, amount: 0 });
  const p3 = await payment(leo.id, 9900, 'TWD', 'atm', 'unpaid', -1 * DAY, { bank_code: '822', bank_name: 'CTBC Bank', code_no: '9103522850012345', expired_at: at(3 * DAY) });
  const p4 = await payment(leo.id, 500, 'TWD', 'convenience_store', 'unpaid', -3 * DAY, { code_no: 'CVS123', expired_at: at(-1 * HOUR) });
  const p5 = await payment(leo.id, 4900, 'USD', 'line_pay', 'paid', -40 * DAY, {
    paid_at: at(-40 * DAY),
    installment_count: 3,
    installment_amount: 1633,
    installment_interval: 'month',
    refunding_state: 'partially_refunded',
    refunded_amount: 900,
    refunded_at: at(-1 * DAY),
  });
  const p6 = await payment(mia.id, 2800, 'TWD', null, 'unpaid', -2 * DAY);
  const p7 = await payment(mia.id, 2800, 'TWD', 'credit_card', 'failed', -6 * DAY);
  return { mia, leo, c1, c2, coupon, product, p1, p2, p3, p4, p5, p6, p7 };
}

describeEachDatabase('admin API: orders and analytics (area commerce)', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: ['orders:read', 'analytics:read'] });
  let limited: AdminApi;
  let data: Awaited<ReturnType<typeof seed>>;
  let paymentB: number;
  const now = Date.now();

  before(async () => {
    const { db, server } = admin;
    limited = await admin.apiWithScopes(['coupons:read']);
    data = await seed(db, server.siteA, now);
    const other = await makeUser(db, server.siteB, ['student'], 'Bo Beta');
    paymentB = await insert(db, 'payments', { site_id: server.siteB.id, user_id: other.id, trade_no: 'B-1', amount: 100, currency: 'EUR', payment_type: 'credit_card', payment_state: 'paid', paid_at: new Date(now - DAY), created_at: new Date(now - DAY), updated_at: new Date(now - DAY) });
  });

  async function ids(query: Record<string, string | number | boolean> = {}): Promise<number[]> {
    const answer = await admin.api.call<OrderList>('listOrders', { query: { limit: 100, ...query } });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body.nextCursor).to.equal(null);
    return answer.body.data.map((order) => order.id);
  }

  describe('listOrders', () => {
    it('lists every payment attempt of the site, newest first, abandoned checkouts included', async () => {
      const { p1, p2, p3, p4, p5, p6, p7 } = data;
      expect(await ids()).to.deep.equal([p3, p6, p4, p2, p1, p7, p5]);
      const answer = await admin.api.call<OrderList>('listOrders', { query: { limit: 100 } });
      const first = answer.body.data.find((order) => order.id === p1);
      expect(first).to.deep.include({ tradeNo: `T-${admin.server.siteA.id}-1`, state: 'paid', paymentType: 'credit_card', refundState: 'none' });
      expect(first?.member).to.deep.equal({ id: data.mia.id, name: 'Mia Member', email: data.mia.email });
      expect(first?.amount).to.deep.equal({ amount: 3240, currency: 'TWD' });
      expect(first?.netAmount).to.deep.equal({ amount: 3240, currency: 'TWD' });
      const abandoned = answer.body.data.find((order) => order.id === p6);
      expect(abandoned).to.deep.include({ paymentType: null, state: 'unpaid', paidAt: null });
      expect(abandoned?.netAmount).to.deep.equal({ amount: 0, currency: 'TWD' });
    });

    it('pages with nextCursor without repeats or gaps, and refuses foreign or mismatched cursors', async () => {
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: Record<string, string | number> = { limit: 3, sort: 'amount' };
        if (cursor !== null) query.cursor = cursor;
        const page: { status: number; body: OrderList } = await admin.api.call<OrderList>('listOrders', { query });
        expect(page.status).to.equal(200);
        expect(page.body.data.length).to.be.at.most(3);
        seen.push(...page.body.data.map((order) => order.id));
        cursor = page.body.nextCursor;
        pages += 1;
      } while (cursor !== null);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(await ids({ sort: 'amount' }));
      const first = await admin.api.call<OrderList>('listOrders', { query: { limit: 2 } });
      const nextCursor = first.body.nextCursor ?? 'missing';
      const mismatched = await admin.api.call('listOrders', { query: { limit: 2, cursor: nextCursor, state: 'paid' } });
      expect(mismatched.status).to.equal(400);
      expect(mismatched.problem.code).to.equal('invalid_cursor');
      const bogus = await admin.api.call('listOrders', { query: { cursor: 'not-a-cursor' } });
      expect(bogus.status).to.equal(400);
      expect(bogus.problem.code).to.equal('invalid_cursor');
    });

    it('sorts by amount both ways, ties by id in the same direction', async () => {
      const { p1, p2, p3, p4, p5, p6, p7 } = data;
      expect(await ids({ sort: 'amount' })).to.deep.equal([p4, p2, p6, p7, p1, p5, p3]);
      expect(await ids({ sort: '-amount' })).to.deep.equal([p3, p5, p1, p7, p6, p2, p4]);
      expect(await ids({ sort: 'createdAt' })).to.deep.equal([p5, p7, p1, p2, p4, p6, p3]);
      const bad = await admin.api.call('listOrders', { query: { sort: 'paidAt' } });
      expect(bad.status).to.equal(400);
      expect(bad.problem.errors?.[0]?.parameter).to.equal('sort');
    });

    it('filters by derived state (an unpaid payment past its deadline is expired), refund state, member, method and creation time', async () => {
      const { p1, p2, p3, p4, p5, p6, p7 } = data;
      expect(await ids({ state: 'unpaid' })).to.deep.equal([p3, p6]);
      expect(await ids({ state: 'expired' })).to.deep.equal([p4]);
      expect(await ids({ state: 'paid' })).to.deep.equal([p2, p1, p5]);
      expect(await ids({ state: 'failed' })).to.deep.equal([p7]);
      expect(await ids({ state: 'canceled' })).to.deep.equal([]);
      expect(await ids({ refundState: 'refunded' })).to.deep.equal([p2]);
      expect(await ids({ refundState: 'partially_refunded' })).to.deep.equal([p5]);
      expect(await ids({ refundState: 'none' })).to.deep.equal([p3, p6, p4, p1, p7]);
      expect(await ids({ userId: data.leo.id })).to.deep.equal([p3, p4, p5]);
      expect(await ids({ paymentType: 'cvs' })).to.deep.equal([p4]);
      expect(await ids({ paymentType: 'credit_card' })).to.deep.equal([p2, p1, p7]);
      expect(await ids({ paymentType: 'other' })).to.deep.equal([]);
      expect(await ids({ paymentType: 'credit_card', state: 'paid', userId: data.mia.id })).to.deep.equal([p2, p1]);
      const from = new Date(now - 4.5 * DAY).toISOString();
      const to = new Date(now - 1.5 * DAY).toISOString();
      expect(await ids({ createdFrom: from, createdTo: to })).to.deep.equal([p6, p4, p2]);
      const reversed = await admin.api.call('listOrders', { query: { createdFrom: to, createdTo: from } });
      expect(reversed.status).to.equal(400);
      expect(reversed.problem.errors).to.deep.equal([{ parameter: 'createdTo', message: 'must be after createdFrom' }]);
      const invalid = await admin.api.call('listOrders', { query: { state: 'refunded', createdFrom: 'yesterday', userId: 0 } });
      expect(invalid.status).to.equal(400);
      expect((invalid.problem.errors ?? []).map((error) => error.parameter)).to.include.members(['state', 'createdFrom', 'userId']);
      const unknown = await admin.api.call('listOrders', { query: { tradeNo: 'x' } });
      expect(unknown.status).to.equal(400);
    });
  });

  describe('getOrder', () => {
    it('shows the member, line items with existing item ids, coupon adjustments, totals and the invoice', async () => {
      const answer = await admin.api.call<Order>('getOrder', { path: { orderId: String(data.p1) } });
      expect(answer.status, answer.text).to.equal(200);
      const order = answer.body;
      expect(order).to.deep.include({ id: data.p1, state: 'paid', paymentType: 'credit_card', refundState: 'none', installment: null, paymentInstructions: null, refundedAt: null });
      expect(order.lineItems).to.deep.equal([{ kind: 'course', itemId: data.c1, title: 'Typography', quantity: 1, unitAmount: { amount: 3600, currency: 'TWD' }, amount: { amount: 3600, currency: 'TWD' } }]);
      expect(order.adjustments).to.deep.equal([{ kind: 'coupon', code: 'WELCOME10', couponId: data.coupon, title: 'Welcome 10% off', amount: { amount: -360, currency: 'TWD' } }]);
      expect(order.subtotal).to.deep.equal({ amount: 3600, currency: 'TWD' });
      expect(order.adjustmentTotal).to.deep.equal({ amount: -360, currency: 'TWD' });
      expect(order.invoice).to.deep.include({ number: 'AB-1', type: 'company', title: 'Chen Studio Ltd.', taxId: '24536806', status: 'issued', carrier: null });
      expect(order.paidAt).to.equal(new Date(now - 5 * DAY + HOUR).toISOString());
      expect(answer.headers.get('etag')).to.equal(null);
    });

    it('shows refunds: state, refunded amount and times, net zero after a full refund; a deleted item has no id', async () => {
      const order = (await admin.api.call<Order>('getOrder', { path: { orderId: String(data.p2) } })).body;
      expect(order).to.deep.include({ refundState: 'refunded', refundRequestedAt: new Date(now - 3 * DAY).toISOString(), refundedAt: new Date(now - 2 * DAY).toISOString() });
      expect(order.refundedAmount).to.deep.equal({ amount: 1200, currency: 'TWD' });
      expect(order.netAmount).to.deep.equal({ amount: 0, currency: 'TWD' });
      expect(order.lineItems.map((line) => [line.kind, line.itemId])).to.deep.equal([
        ['digital_product', data.product],
        ['course', null],
      ]);
      const partial = (await admin.api.call<Order>('getOrder', { path: { orderId: String(data.p5) } })).body;
      expect(partial.netAmount).to.deep.equal({ amount: 4000, currency: 'USD' });
      expect(partial.installment).to.deep.equal({ count: 3, firstInstallmentAmount: { amount: 1634, currency: 'USD' }, perInstallmentAmount: { amount: 1633, currency: 'USD' }, interval: 'month' });
    });

    it('shows ATM and convenience-store instructions for unpaid and expired payments', async () => {
      const atm = (await admin.api.call<Order>('getOrder', { path: { orderId: String(data.p3) } })).body;
      expect(atm.state).to.equal('unpaid');
      expect(atm.paymentInstructions).to.deep.equal({ bankCode: '822', bankName: 'CTBC Bank', codeNo: '9103522850012345', expiresAt: new Date(now + 3 * DAY).toISOString() });
      const cvs = (await admin.api.call<Order>('getOrder', { path: { orderId: String(data.p4) } })).body;
      expect(cvs.state).to.equal('expired');
      expect(cvs.paymentInstructions).to.deep.equal({ bankCode: null, bankName: null, codeNo: 'CVS123', expiresAt: new Date(now - HOUR).toISOString() });
      expect(cvs.invoice).to.equal(null);
    });

    it("answers 404 for another site's order and unknown ids, 403 without orders:read, 401 without a token", async () => {
      expect((await admin.api.call('getOrder', { path: { orderId: String(paymentB) } })).status).to.equal(404);
      expect((await admin.api.call('getOrder', { path: { orderId: '99999999' } })).status).to.equal(404);
      expect((await admin.apiB.call('getOrder', { path: { orderId: String(data.p1) } })).status).to.equal(404);
      const listB = await admin.apiB.call<OrderList>('listOrders');
      expect(listB.body.data.map((order) => order.id)).to.deep.equal([paymentB]);
      const forbidden = await limited.call('listOrders');
      expect(forbidden.status).to.equal(403);
      expect(forbidden.problem.code).to.equal('insufficient_scope');
      expect((await limited.call('getOrder', { path: { orderId: String(data.p1) } })).status).to.equal(403);
      expect((await admin.api.call('getOrder', { path: { orderId: '0' } })).status).to.equal(400);
      expect((await admin.api.call('listOrders', { token: null })).status).to.equal(401);
    });
  });

  describe('getAnalyticsSummary', () => {
    it('summarises the last 30 days by default', async () => {
      const answer = await admin.api.call<Summary>('getAnalyticsSummary');
      expect(answer.status, answer.text).to.equal(200);
      const summary = answer.body;
      expect(new Date(summary.to).getTime() - new Date(summary.from).getTime()).to.equal(30 * DAY);
      // Mia (joined 100 days ago), Leo (10 days ago), and the two operators whose tokens this suite issued (now).
      expect(summary.members).to.deep.equal({ total: 4, new: 3 });
      expect(summary.courses).to.deep.equal({ published: 2 });
      expect(summary.enrollments).to.deep.equal({ total: 4, new: 3, active: 3 });
      expect(summary.lectureCompletions).to.equal(1);
      expect(summary.ordersByState).to.deep.equal({ unpaid: 2, paid: 2, expired: 1, failed: 1, canceled: 0 });
      expect(summary.revenue).to.deep.equal([
        { gross: { amount: 4440, currency: 'TWD' }, refunded: { amount: 1200, currency: 'TWD' }, net: { amount: 3240, currency: 'TWD' } },
        { gross: { amount: 0, currency: 'USD' }, refunded: { amount: 900, currency: 'USD' }, net: { amount: -900, currency: 'USD' } },
      ]);
      expect(summary.topCourses).to.deep.equal([
        { courseId: data.c1, title: 'Course typography', slug: 'typography', newEnrollments: 2 },
        { courseId: data.c2, title: 'Course color', slug: 'color', newEnrollments: 1 },
      ]);
    });

    it('takes an explicit window [from, to)', async () => {
      const from = new Date(now - 45 * DAY).toISOString();
      const to = new Date(now - 3 * DAY).toISOString();
      const summary = (await admin.api.call<Summary>('getAnalyticsSummary', { query: { from, to } })).body;
      expect(summary.from).to.equal(from);
      expect(summary.to).to.equal(to);
      expect(summary.ordersByState).to.deep.equal({ unpaid: 0, paid: 3, expired: 0, failed: 1, canceled: 0 });
      expect(summary.revenue).to.deep.equal([
        { gross: { amount: 4440, currency: 'TWD' }, refunded: { amount: 0, currency: 'TWD' }, net: { amount: 4440, currency: 'TWD' } },
        { gross: { amount: 4900, currency: 'USD' }, refunded: { amount: 0, currency: 'USD' }, net: { amount: 4900, currency: 'USD' } },
      ]);
      // Mia's typography enrollment (5 days ago); Leo's started exactly at `to`, which is excluded.
      expect(summary.enrollments).to.deep.include({ new: 1 });
      expect(summary.lectureCompletions).to.equal(1);
      expect(summary.members.new).to.equal(1);
      // With only `from`, the window ends now.
      const open = (await admin.api.call<Summary>('getAnalyticsSummary', { query: { from } })).body;
      expect(open.ordersByState.unpaid).to.equal(2);
    });

    it('refuses a reversed or too long window, naming the parameter', async () => {
      const reversed = await admin.api.call('getAnalyticsSummary', { query: { from: new Date(now).toISOString(), to: new Date(now - DAY).toISOString() } });
      expect(reversed.status).to.equal(400);
      expect(reversed.problem.errors).to.deep.equal([{ parameter: 'to', message: 'must be after from' }]);
      const long = await admin.api.call('getAnalyticsSummary', { query: { from: new Date(now - 367 * DAY).toISOString(), to: new Date(now).toISOString() } });
      expect(long.status).to.equal(400);
      expect(long.problem.errors?.[0]?.parameter).to.equal('to');
      const year = await admin.api.call('getAnalyticsSummary', { query: { from: new Date(now - 366 * DAY).toISOString(), to: new Date(now).toISOString() } });
      expect(year.status).to.equal(200);
      const malformed = await admin.api.call('getAnalyticsSummary', { query: { from: 'last week' } });
      expect(malformed.status).to.equal(400);
    });

    it("counts only the request's site, and needs analytics:read", async () => {
      const summary = (await admin.apiB.call<Summary>('getAnalyticsSummary')).body;
      expect(summary.ordersByState).to.deep.equal({ unpaid: 0, paid: 1, expired: 0, failed: 0, canceled: 0 });
      expect(summary.revenue).to.deep.equal([{ gross: { amount: 100, currency: 'EUR' }, refunded: { amount: 0, currency: 'EUR' }, net: { amount: 100, currency: 'EUR' } }]);
      expect(summary.courses.published).to.equal(0);
      expect(summary.topCourses).to.deep.equal([]);
      expect((await limited.call('getAnalyticsSummary')).status).to.equal(403);
    });

    it('runs a fixed number of queries whatever the amount of data (set-based)', async () => {
      const db = scratch().db;
      const countQueries = async (): Promise<number> => {
        // Steady state: seeding writes the site row, which empties the site cache for one request.
        expect((await admin.apiB.call('getAnalyticsSummary')).status).to.equal(200);
        let queries = 0;
        const listener = () => {
          queries += 1;
        };
        db.on('query', listener);
        try {
          expect((await admin.apiB.call('getAnalyticsSummary')).status).to.equal(200);
        } finally {
          db.removeListener('query', listener);
        }
        return queries;
      };
      const before = await countQueries();
      const more = await seed(db, admin.server.siteB, now);
      expect(more.p7).to.be.above(0);
      expect(await countQueries()).to.equal(before);
    });
  });
});
