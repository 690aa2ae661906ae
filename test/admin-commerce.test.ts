import { expect } from 'chai';
import type { Database } from '../src/db/connection.js';
import { type AdminApi, issueToken, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser } from './support/oauth-fixtures.js';

type Coupon = Schemas['Coupon'];
type CouponList = Schemas['CouponList'];
type Product = Schemas['DigitalProduct'];
type ProductList = Schemas['DigitalProductList'];
type Owner = Schemas['DigitalProductOwner'];
type OwnerList = Schemas['DigitalProductOwnerList'];

const DAY = 24 * 60 * 60 * 1000;
const WRITE_SCOPES = ['coupons:read', 'coupons:write', 'digital_products:read', 'digital_products:write'];

/** A payment of `userId` at `siteId` (for the guarded deletes), with the given adjustment and line-item rows. */
async function insertPayment(db: Database, siteId: number, userId: number, tradeNo: string, rows: { couponId?: number; productId?: number }): Promise<number> {
  const now = new Date();
  const [id] = await db('payments').insert({ site_id: siteId, user_id: userId, trade_no: tradeNo, amount: 900, currency: 'TWD', payment_type: 'credit_card', payment_state: 'unpaid', created_at: now, updated_at: now });
  const paymentId = Number(id);
  if (rows.couponId !== undefined) await db('payment_adjustments').insert({ payment_id: paymentId, position: 0, kind: 'coupon', code: 'X', title: 'Coupon', amount: -100, coupon_id: rows.couponId });
  if (rows.productId !== undefined) await db('payment_line_items').insert({ payment_id: paymentId, position: 0, item_kind: 'digital_product', item_id: rows.productId, title: 'Product', quantity: 1, unit_amount: 1000, amount: 1000 });
  return paymentId;
}

describeEachDatabase('admin API: coupons and digital products (area commerce)', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: WRITE_SCOPES });
  let readOnly: AdminApi;

  before(async () => {
    readOnly = await admin.apiWithScopes(['coupons:read', 'digital_products:read']);
  });

  function pointers(answer: { problem: Schemas['Problem'] }): string[] {
    return (answer.problem.errors ?? []).map((error) => error.pointer ?? `?${error.parameter ?? ''}`);
  }

  describe('coupons', () => {
    async function createCoupon(body: Record<string, unknown>): Promise<{ coupon: Coupon; etag: string }> {
      const answer = await admin.api.call<Coupon>('createCoupon', { body });
      expect(answer.status, answer.text).to.equal(201);
      return { coupon: answer.body, etag: answer.headers.get('etag') ?? '' };
    }

    it('creates percent and amount coupons with ETag and Location, and reads them back', async () => {
      const answer = await admin.api.call<Coupon>('createCoupon', { body: { code: 'WELCOME10', title: 'Welcome 10% off', discountKind: 'percent', percentOff: 10, maxRedemptions: 100 } });
      expect(answer.status, answer.text).to.equal(201);
      expect(answer.body).to.deep.include({ code: 'WELCOME10', title: 'Welcome 10% off', discountKind: 'percent', percentOff: 10, amountOff: null, maxRedemptions: 100, redeemedCount: 0, orderCount: 0, startsAt: null, endsAt: null, active: true, redeemable: true });
      expect(answer.headers.get('etag')).to.equal('"v1"');
      expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/coupons/${answer.body.id}`);
      const read = await admin.api.call<Coupon>('getCoupon', { path: { couponId: String(answer.body.id) } });
      expect(read.status).to.equal(200);
      expect(read.body).to.deep.equal(answer.body);
      expect(read.headers.get('etag')).to.equal('"v1"');

      const startsAt = new Date(Date.now() + DAY).toISOString();
      const { coupon } = await createCoupon({ code: 'FLAT200', discountKind: 'amount', amountOff: { amount: 20000, currency: 'TWD' }, startsAt, endsAt: new Date(Date.now() + 2 * DAY).toISOString(), active: false });
      expect(coupon).to.deep.include({ discountKind: 'amount', percentOff: null, startsAt, active: false, redeemable: false });
      expect(coupon.amountOff).to.deep.equal({ amount: 20000, currency: 'TWD' });
    });

    it('refuses inconsistent discounts, a reversed window, bad codes and unknown members with pointers', async () => {
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [{ code: 'A1', discountKind: 'percent' }, ['/percentOff']],
        [{ code: 'A1', discountKind: 'percent', percentOff: 5, amountOff: { amount: 100, currency: 'TWD' } }, ['/amountOff']],
        [{ code: 'A1', discountKind: 'amount', percentOff: 5 }, ['/amountOff', '/percentOff']],
        [{ code: 'A1', discountKind: 'amount', amountOff: { amount: 0, currency: 'TWD' } }, ['/amountOff/amount']],
        [{ code: 'A1', discountKind: 'percent', percentOff: 5, startsAt: '2030-01-02T00:00:00Z', endsAt: '2030-01-01T00:00:00Z' }, ['/endsAt']],
        [{ code: 'has space', discountKind: 'percent', percentOff: 101, colour: 'red' }, ['/code', '/percentOff', '/colour']],
        [{ discountKind: 'free' }, ['/code', '/discountKind']],
        [{ code: 'A1', discountKind: 'amount', amountOff: { amount: 5, currency: 'twd' } }, ['/amountOff/currency']],
      ];
      for (const [body, expected] of cases) {
        const answer = await admin.api.call('createCoupon', { body });
        expect(answer.status, JSON.stringify(body)).to.equal(400);
        expect(answer.problem.code).to.equal('invalid_request');
        expect(pointers(answer), JSON.stringify(body)).to.include.members(expected);
      }
      const patchType = await admin.api.call('createCoupon', { body: { code: 'A1', discountKind: 'percent', percentOff: 5 }, contentType: 'application/merge-patch+json' });
      expect(patchType.status).to.equal(415);
    });

    it('keeps codes unique per site ignoring case (409 code_taken), on create and update', async () => {
      await createCoupon({ code: 'Spring', discountKind: 'percent', percentOff: 15 });
      const duplicate = await admin.api.call('createCoupon', { body: { code: 'SPRING', discountKind: 'percent', percentOff: 20 } });
      expect(duplicate.status).to.equal(409);
      expect(duplicate.problem.code).to.equal('code_taken');
      const { coupon, etag } = await createCoupon({ code: 'Summer', discountKind: 'percent', percentOff: 15 });
      const renamed = await admin.api.call('updateCoupon', { path: { couponId: String(coupon.id) }, headers: { 'if-match': etag }, body: { code: 'spring' } });
      expect(renamed.status).to.equal(409);
      expect(renamed.problem.code).to.equal('code_taken');
      // Another site may use the same code.
      expect((await admin.apiB.call('createCoupon', { body: { code: 'SPRING', discountKind: 'percent', percentOff: 5 } })).status).to.equal(201);
      // Changing only the case of its own code is fine.
      const recased = await admin.api.call<Coupon>('updateCoupon', { path: { couponId: String(coupon.id) }, headers: { 'if-match': etag }, body: { code: 'SUMMER' } });
      expect(recased.status, recased.text).to.equal(200);
      expect(recased.body.code).to.equal('SUMMER');
    });

    it('applies merge patches at the If-Match version (412 stale, 428 missing), switching kinds and clearing fields', async () => {
      const { coupon, etag } = await createCoupon({ code: 'PATCHME', title: 'Patch me', discountKind: 'percent', percentOff: 10, endsAt: new Date(Date.now() + DAY).toISOString() });
      const path = { couponId: String(coupon.id) };
      const missing = await admin.api.call('updateCoupon', { path, body: { active: false } });
      expect(missing.status).to.equal(428);
      const switched = await admin.api.call<Coupon>('updateCoupon', { path, headers: { 'if-match': etag }, body: { discountKind: 'amount', amountOff: { amount: 500, currency: 'USD' }, title: null, endsAt: null }, contentType: 'application/merge-patch+json' });
      expect(switched.status, switched.text).to.equal(200);
      expect(switched.body).to.deep.include({ discountKind: 'amount', percentOff: null, title: null, endsAt: null });
      expect(switched.body.amountOff).to.deep.equal({ amount: 500, currency: 'USD' });
      expect(switched.headers.get('etag')).to.equal('"v2"');
      const stale = await admin.api.call('updateCoupon', { path, headers: { 'if-match': etag }, body: { active: false } });
      expect(stale.status).to.equal(412);
      expect(stale.problem.code).to.equal('precondition_failed');
      const incomplete = await admin.api.call('updateCoupon', { path, headers: { 'if-match': '"v2"' }, body: { discountKind: 'percent' } });
      expect(incomplete.status).to.equal(400);
      expect(pointers(incomplete)).to.deep.equal(['/percentOff']);
      const unknown = await admin.api.call('updateCoupon', { path, headers: { 'if-match': '"v2"' }, body: { redeemedCount: 3 } });
      expect(unknown.status).to.equal(400);
      expect(pointers(unknown)).to.deep.equal(['/redeemedCount']);
      const nonNullable = await admin.api.call('updateCoupon', { path, headers: { 'if-match': '"v2"' }, body: { active: null } });
      expect(nonNullable.status).to.equal(400);
      await scratch().db('coupons').where({ id: coupon.id }).update({ redeemed_count: 5 });
      const belowRedeemed = await admin.api.call('updateCoupon', { path, headers: { 'if-match': '"v2"' }, body: { maxRedemptions: 4 } });
      expect(belowRedeemed.status).to.equal(400);
      expect(pointers(belowRedeemed)).to.deep.equal(['/maxRedemptions']);
      const exhausted = await admin.api.call<Coupon>('updateCoupon', { path, headers: { 'if-match': '"v2"' }, body: { maxRedemptions: 5 } });
      expect(exhausted.body).to.deep.include({ maxRedemptions: 5, redeemedCount: 5, redeemable: false });
      const empty = await admin.api.call<Coupon>('updateCoupon', { path, headers: { 'if-match': '"v3"' }, body: {} });
      expect(empty.status).to.equal(200);
      expect(empty.headers.get('etag')).to.equal('"v3"');
    });

    it('lists with pagination, sorts and the active and q filters', async () => {
      const listed = async (query: Record<string, string | number | boolean>): Promise<string[]> => {
        const answer = await admin.api.call<CouponList>('listCoupons', { query: { limit: 100, ...query } });
        expect(answer.status, answer.text).to.equal(200);
        return answer.body.data.map((coupon) => coupon.code);
      };
      const all = await listed({ sort: 'code' });
      expect(all).to.have.members(['WELCOME10', 'FLAT200', 'Spring', 'SUMMER', 'PATCHME']);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: Record<string, string | number> = { limit: 2, sort: 'code' };
        if (cursor !== null) query.cursor = cursor;
        const page: { body: CouponList } = await admin.api.call<CouponList>('listCoupons', { query });
        seen.push(...page.body.data.map((coupon) => coupon.code));
        cursor = page.body.nextCursor;
      } while (cursor !== null);
      expect(seen).to.deep.equal(all);
      expect(await listed({ sort: '-code' })).to.deep.equal([...all].reverse());
      const newest = await listed({});
      expect(newest).to.deep.equal(['PATCHME', 'SUMMER', 'Spring', 'FLAT200', 'WELCOME10']);
      expect(await listed({ sort: 'createdAt' })).to.deep.equal([...newest].reverse());
      expect(await listed({ sort: '-updatedAt' })).to.deep.equal(['PATCHME', 'SUMMER', 'Spring', 'FLAT200', 'WELCOME10']);
      expect(await listed({ active: false })).to.have.members(['FLAT200']);
      expect(await listed({ q: 'welcome' })).to.deep.equal(['WELCOME10']);
      expect(await listed({ q: '10% OFF' })).to.deep.equal(['WELCOME10']);
      expect(await listed({ q: '%' })).to.deep.equal(['WELCOME10']);
      expect(await listed({ q: 'zzz' })).to.deep.equal([]);
      const first = await admin.api.call<CouponList>('listCoupons', { query: { limit: 1 } });
      const mismatched = await admin.api.call('listCoupons', { query: { limit: 1, cursor: first.body.nextCursor ?? '', active: true } });
      expect(mismatched.problem.code).to.equal('invalid_cursor');
      expect((await admin.api.call('listCoupons', { query: { sort: 'endsAt' } })).status).to.equal(400);
    });

    it('refuses to delete a coupon orders used (409 coupon_in_use) and deletes an unused one', async () => {
      const used = (await createCoupon({ code: 'USED', discountKind: 'percent', percentOff: 5 })).coupon;
      await insertPayment(scratch().db, admin.server.siteA.id, admin.operator.id, 'C-USED-1', { couponId: used.id });
      const read = await admin.api.call<Coupon>('getCoupon', { path: { couponId: String(used.id) } });
      expect(read.body.orderCount).to.equal(1);
      const refused = await admin.api.call('deleteCoupon', { path: { couponId: String(used.id) } });
      expect(refused.status).to.equal(409);
      expect(refused.problem.code).to.equal('coupon_in_use');
      expect(refused.problem.detail).to.match(/Deactivate it instead/);
      const deactivated = await admin.api.call<Coupon>('updateCoupon', { path: { couponId: String(used.id) }, headers: { 'if-match': read.headers.get('etag') ?? '' }, body: { active: false } });
      expect(deactivated.body).to.deep.include({ active: false, redeemable: false });
      const unused = (await createCoupon({ code: 'UNUSED', discountKind: 'percent', percentOff: 5 })).coupon;
      expect((await admin.api.call('deleteCoupon', { path: { couponId: String(unused.id) } })).status).to.equal(204);
      expect((await admin.api.call('getCoupon', { path: { couponId: String(unused.id) } })).status).to.equal(404);
      expect((await admin.api.call('deleteCoupon', { path: { couponId: String(unused.id) } })).status).to.equal(404);
    });

    it("keeps every site's coupons to itself and checks the scopes", async () => {
      const coupon = (await createCoupon({ code: 'ONLYA', discountKind: 'percent', percentOff: 5 })).coupon;
      const path = { couponId: String(coupon.id) };
      expect((await admin.apiB.call('getCoupon', { path })).status).to.equal(404);
      expect((await admin.apiB.call('updateCoupon', { path, headers: { 'if-match': '"v1"' }, body: { active: false } })).status).to.equal(404);
      expect((await admin.apiB.call('deleteCoupon', { path })).status).to.equal(404);
      const listB = await admin.apiB.call<CouponList>('listCoupons');
      expect(listB.body.data.map((item) => item.code)).to.deep.equal(['SPRING']);
      expect((await readOnly.call('getCoupon', { path })).status).to.equal(200);
      const forbidden = await readOnly.call('createCoupon', { body: { code: 'NOPE', discountKind: 'percent', percentOff: 5 } });
      expect(forbidden.status).to.equal(403);
      expect(forbidden.problem.code).to.equal('insufficient_scope');
      expect((await readOnly.call('deleteCoupon', { path })).status).to.equal(403);
      const productsOnly = admin.api.withToken((await issueToken(scratch().db, admin.server.siteA, { scopes: ['digital_products:read'] })).token);
      expect((await productsOnly.call('listCoupons')).status).to.equal(403);
    });
  });

  describe('digital products', () => {
    async function createProduct(body: Record<string, unknown>): Promise<Product> {
      const answer = await admin.api.call<Product>('createDigitalProduct', { body });
      expect(answer.status, answer.text).to.equal(201);
      return answer.body;
    }

    it('creates (draft by default), reads and lists products', async () => {
      const answer = await admin.api.call<Product>('createDigitalProduct', { body: { slug: 'type-specimens', title: 'Type Specimens', kind: 'ebook', price: { amount: 49000, currency: 'TWD' }, downloadUrl: 'https://cdn.example/type.pdf' } });
      expect(answer.status, answer.text).to.equal(201);
      expect(answer.body).to.deep.include({ slug: 'type-specimens', title: 'Type Specimens', kind: 'ebook', status: 'draft', description: null, coverImageUrl: null, downloadUrl: 'https://cdn.example/type.pdf', ownerCount: 0 });
      expect(answer.body.price).to.deep.equal({ amount: 49000, currency: 'TWD' });
      expect(answer.headers.get('etag')).to.equal('"v1"');
      expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/digital-products/${answer.body.id}`);
      const read = await admin.api.call<Product>('getDigitalProduct', { path: { productId: String(answer.body.id) } });
      expect(read.body).to.deep.equal(answer.body);
      expect(read.headers.get('etag')).to.equal('"v1"');
      const free = await createProduct({ slug: 'brushes', title: 'Brush Pack', kind: 'template', status: 'published', price: null });
      expect(free).to.deep.include({ status: 'published', price: null });
    });

    it('refuses bad bodies with pointers and duplicate slugs with 409 slug_taken', async () => {
      const bad = await admin.api.call('createDigitalProduct', { body: { slug: 'Not A Slug', title: '', kind: 'book', downloadUrl: 'nope', extra: 1 } });
      expect(bad.status).to.equal(400);
      expect(pointers(bad)).to.include.members(['/slug', '/title', '/kind', '/downloadUrl', '/extra']);
      const negative = await admin.api.call('createDigitalProduct', { body: { slug: 'neg', title: 'Negative', kind: 'file', price: { amount: -1, currency: 'TWD' } } });
      expect(negative.status).to.equal(400);
      expect(pointers(negative)).to.deep.equal(['/price/amount']);
      const missing = await admin.api.call('createDigitalProduct', { body: { title: 'No slug' } });
      expect(pointers(missing)).to.include.members(['/slug', '/kind']);
      const taken = await admin.api.call('createDigitalProduct', { body: { slug: 'brushes', title: 'Again', kind: 'file' } });
      expect(taken.status).to.equal(409);
      expect(taken.problem.code).to.equal('slug_taken');
      expect((await admin.apiB.call('createDigitalProduct', { body: { slug: 'brushes', title: 'B brushes', kind: 'file' } })).status).to.equal(201);
    });

    it('updates with merge patch and If-Match (412, 428), clears nullable fields, refuses a taken slug', async () => {
      const product = await createProduct({ slug: 'audio-notes', title: 'Audio notes', kind: 'audio', description: 'Notes', coverImageUrl: 'https://cdn.example/c.png', price: { amount: 100, currency: 'USD' } });
      const path = { productId: String(product.id) };
      expect((await admin.api.call('updateDigitalProduct', { path, body: { title: 'x' } })).status).to.equal(428);
      const updated = await admin.api.call<Product>('updateDigitalProduct', { path, headers: { 'if-match': '"v1"' }, body: { title: 'Audio Notes', status: 'published', description: null, coverImageUrl: null, price: null } });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body).to.deep.include({ title: 'Audio Notes', status: 'published', description: null, coverImageUrl: null, price: null });
      expect(updated.headers.get('etag')).to.equal('"v2"');
      expect((await admin.api.call('updateDigitalProduct', { path, headers: { 'if-match': '"v1"' }, body: { status: 'archived' } })).status).to.equal(412);
      const taken = await admin.api.call('updateDigitalProduct', { path, headers: { 'if-match': '"v2"' }, body: { slug: 'brushes' } });
      expect(taken.status).to.equal(409);
      expect(taken.problem.code).to.equal('slug_taken');
      const nullTitle = await admin.api.call('updateDigitalProduct', { path, headers: { 'if-match': '"v2"' }, body: { title: null, ownerCount: 3 } });
      expect(pointers(nullTitle)).to.include.members(['/title', '/ownerCount']);
    });

    it('lists with filters, sorts and pagination', async () => {
      const listed = async (query: Record<string, string | number>): Promise<string[]> => {
        const answer = await admin.api.call<ProductList>('listDigitalProducts', { query: { limit: 100, ...query } });
        expect(answer.status, answer.text).to.equal(200);
        return answer.body.data.map((product) => product.slug);
      };
      expect(await listed({ sort: 'slug' })).to.deep.equal(['audio-notes', 'brushes', 'type-specimens']);
      expect(await listed({ sort: '-title' })).to.deep.equal(['type-specimens', 'brushes', 'audio-notes']);
      expect(await listed({})).to.deep.equal(['audio-notes', 'brushes', 'type-specimens']);
      expect(await listed({ sort: 'createdAt' })).to.deep.equal(['type-specimens', 'brushes', 'audio-notes']);
      expect(await listed({ sort: '-updatedAt' })).to.deep.equal(['audio-notes', 'brushes', 'type-specimens']);
      expect(await listed({ sort: 'updatedAt' })).to.deep.equal(['type-specimens', 'brushes', 'audio-notes']);
      expect(await listed({ status: 'published', sort: 'slug' })).to.deep.equal(['audio-notes', 'brushes']);
      expect(await listed({ kind: 'ebook' })).to.deep.equal(['type-specimens']);
      expect(await listed({ q: 'BRUSH' })).to.deep.equal(['brushes']);
      expect(await listed({ q: 'audio-' })).to.deep.equal(['audio-notes']);
      const page1 = await admin.api.call<ProductList>('listDigitalProducts', { query: { limit: 2, sort: 'slug' } });
      expect(page1.body.data.map((product) => product.slug)).to.deep.equal(['audio-notes', 'brushes']);
      const page2 = await admin.api.call<ProductList>('listDigitalProducts', { query: { limit: 2, sort: 'slug', cursor: page1.body.nextCursor ?? '' } });
      expect(page2.body.data.map((product) => product.slug)).to.deep.equal(['type-specimens']);
      expect(page2.body.nextCursor).to.equal(null);
      const wrongSort = await admin.api.call('listDigitalProducts', { query: { limit: 2, sort: 'title', cursor: page1.body.nextCursor ?? '' } });
      expect(wrongSort.problem.code).to.equal('invalid_cursor');
      expect((await admin.apiB.call<ProductList>('listDigitalProducts')).body.data.map((product) => product.slug)).to.deep.equal(['brushes']);
    });

    it('grants to members of the site, lists, reads and revokes owners', async () => {
      const db = scratch().db;
      const product = await createProduct({ slug: 'owned', title: 'Owned', kind: 'video' });
      const path = { productId: String(product.id) };
      const members = [];
      for (const name of ['Ann', 'Ben', 'Cat']) members.push(await makeUser(db, admin.server.siteA, ['student'], name));
      const [ann, ben, cat] = members;
      if (!ann || !ben || !cat) throw new Error('no members');
      const granted = await admin.api.call<Owner>('grantDigitalProduct', { path, body: { userId: ann.id, acquiredAt: '2024-01-01T00:00:00.000Z' } });
      expect(granted.status, granted.text).to.equal(201);
      expect(granted.body).to.deep.equal({ productId: product.id, member: { id: ann.id, name: 'Ann', email: ann.email }, acquiredAt: '2024-01-01T00:00:00.000Z', expiresAt: null, active: true, createdAt: granted.body.createdAt });
      expect(granted.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/digital-products/${product.id}/owners/${ann.id}`);
      const expired = await admin.api.call<Owner>('grantDigitalProduct', { path, body: { userId: ben.id, acquiredAt: '2024-02-01T00:00:00.000Z', expiresAt: '2024-03-01T00:00:00.000Z' } });
      expect(expired.body).to.deep.include({ active: false, expiresAt: '2024-03-01T00:00:00.000Z' });
      const recent = await admin.api.call<Owner>('grantDigitalProduct', { path, body: { userId: cat.id } });
      expect(recent.status).to.equal(201);
      expect(Math.abs(new Date(recent.body.acquiredAt).getTime() - Date.now())).to.be.below(60000);

      const again = await admin.api.call('grantDigitalProduct', { path, body: { userId: ben.id } });
      expect(again.status).to.equal(409);
      expect(again.problem.code).to.equal('already_owned');
      const stranger = await makeUser(db, admin.server.siteB, ['student'], 'Stranger');
      const notMember = await admin.api.call('grantDigitalProduct', { path, body: { userId: stranger.id } });
      expect(notMember.status).to.equal(400);
      expect(pointers(notMember)).to.deep.equal(['/userId']);
      const reversed = await admin.api.call('grantDigitalProduct', { path, body: { userId: stranger.id, acquiredAt: '2024-02-01T00:00:00Z', expiresAt: '2024-01-01T00:00:00Z' } });
      expect(pointers(reversed)).to.deep.equal(['/expiresAt']);

      const owners = await admin.api.call<OwnerList>('listDigitalProductOwners', { path, query: { limit: 2 } });
      expect(owners.body.data.map((owner) => owner.member.id)).to.deep.equal([cat.id, ben.id]);
      const rest = await admin.api.call<OwnerList>('listDigitalProductOwners', { path, query: { limit: 2, cursor: owners.body.nextCursor ?? '' } });
      expect(rest.body.data.map((owner) => owner.member.id)).to.deep.equal([ann.id]);
      expect(rest.body.nextCursor).to.equal(null);
      const oldest = await admin.api.call<OwnerList>('listDigitalProductOwners', { path, query: { sort: 'acquiredAt' } });
      expect(oldest.body.data.map((owner) => owner.member.id)).to.deep.equal([ann.id, ben.id, cat.id]);
      const otherProduct = await createProduct({ slug: 'other-owned', title: 'Other', kind: 'file' });
      const foreignCursor = await admin.api.call('listDigitalProductOwners', { path: { productId: String(otherProduct.id) }, query: { limit: 2, cursor: owners.body.nextCursor ?? '' } });
      expect(foreignCursor.problem.code).to.equal('invalid_cursor');
      expect((await admin.api.call<Product>('getDigitalProduct', { path })).body.ownerCount).to.equal(3);

      const one = await admin.api.call<Owner>('getDigitalProductOwner', { path: { ...path, userId: String(ben.id) } });
      expect(one.body.member.id).to.equal(ben.id);
      expect((await admin.api.call('getDigitalProductOwner', { path: { ...path, userId: String(stranger.id) } })).status).to.equal(404);

      const owned = await admin.api.call('deleteDigitalProduct', { path });
      expect(owned.status).to.equal(409);
      expect(owned.problem.code).to.equal('product_has_owners');
      for (const member of members) expect((await admin.api.call('revokeDigitalProduct', { path: { ...path, userId: String(member.id) } })).status).to.equal(204);
      expect((await admin.api.call('revokeDigitalProduct', { path: { ...path, userId: String(ann.id) } })).status).to.equal(404);
      expect((await admin.api.call<OwnerList>('listDigitalProductOwners', { path })).body.data).to.deep.equal([]);
      expect((await admin.api.call('deleteDigitalProduct', { path })).status).to.equal(204);
      expect((await admin.api.call('getDigitalProduct', { path })).status).to.equal(404);
      expect((await admin.api.call('listDigitalProductOwners', { path })).status).to.equal(404);
    });

    it('refuses to delete a product that orders contain (409 product_in_orders)', async () => {
      const product = await createProduct({ slug: 'sold', title: 'Sold', kind: 'file' });
      await insertPayment(scratch().db, admin.server.siteA.id, admin.operator.id, 'P-SOLD-1', { productId: product.id });
      const refused = await admin.api.call('deleteDigitalProduct', { path: { productId: String(product.id) } });
      expect(refused.status).to.equal(409);
      expect(refused.problem.code).to.equal('product_in_orders');
      expect(refused.problem.detail).to.match(/Archive it instead/);
    });

    it("keeps every site's products and ownerships to itself and checks the scopes", async () => {
      const product = await createProduct({ slug: 'only-a', title: 'Only A', kind: 'file' });
      const path = { productId: String(product.id) };
      const memberB = await makeUser(scratch().db, admin.server.siteB, ['student'], 'Bea');
      expect((await admin.apiB.call('getDigitalProduct', { path })).status).to.equal(404);
      expect((await admin.apiB.call('updateDigitalProduct', { path, headers: { 'if-match': '"v1"' }, body: { title: 'Mine' } })).status).to.equal(404);
      expect((await admin.apiB.call('deleteDigitalProduct', { path })).status).to.equal(404);
      expect((await admin.apiB.call('listDigitalProductOwners', { path })).status).to.equal(404);
      expect((await admin.apiB.call('grantDigitalProduct', { path, body: { userId: memberB.id } })).status).to.equal(404);
      expect((await admin.apiB.call('revokeDigitalProduct', { path: { ...path, userId: String(admin.operator.id) } })).status).to.equal(404);
      expect((await readOnly.call('getDigitalProduct', { path })).status).to.equal(200);
      const forbidden = await readOnly.call('grantDigitalProduct', { path, body: { userId: admin.operator.id } });
      expect(forbidden.status).to.equal(403);
      expect(forbidden.problem.code).to.equal('insufficient_scope');
      expect((await readOnly.call('deleteDigitalProduct', { path })).status).to.equal(403);
      const couponsOnly = admin.api.withToken((await issueToken(scratch().db, admin.server.siteA, { scopes: ['coupons:read'] })).token);
      expect((await couponsOnly.call('listDigitalProducts')).status).to.equal(403);
    });
  });
});
