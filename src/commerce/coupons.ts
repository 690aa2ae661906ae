import type { Knex } from 'knex';
import { requireDate, toDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../shared/errors.js';
import { numberOf } from './common.js';
import { moneyFromColumns, type Money } from '../shared/money.js';
import { type Queryable, isUniqueViolation, whereContains } from '../db/queries.js';
import { withTransaction } from '../db/transaction.js';

/**
 * The site's coupons (admin API `/coupons`; docs/admin-commerce.md). A coupon takes `percentOff` percent or
 * `amountOff` off at checkout while it is active, inside its window and under its redemption limit. Codes are unique
 * per site ignoring case (the table's unique key is case-sensitive on SQLite, so the rule is checked here). A coupon
 * that orders used stays: its adjustments are part of those orders' records.
 */

export type DiscountKind = 'percent' | 'amount';

export interface Coupon {
  id: number;
  code: string;
  title: string | null;
  discountKind: DiscountKind;
  percentOff: number | null;
  amountOff: Money | null;
  maxRedemptions: number | null;
  redeemedCount: number;
  /** Payment attempts whose adjustments refer to the coupon. */
  orderCount: number;
  startsAt: Date | null;
  endsAt: Date | null;
  active: boolean;
  /** Active, inside its window and under its limit at the time it was read. */
  redeemable: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface CouponRow {
  id: number | string;
  code: string;
  title: string | null;
  discount_kind: string;
  percent_off: number | string | null;
  amount_off_amount: number | string | null;
  amount_off_currency: string | null;
  max_redemptions: number | string | null;
  redeemed_count: number | string;
  starts_at: unknown;
  ends_at: unknown;
  active: number | boolean;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

/** The coupon's fields an operator sets (create and the merged result of a patch). */
export interface CouponFields {
  code: string;
  title: string | null;
  discountKind: DiscountKind;
  percentOff: number | null;
  amountOff: Money | null;
  maxRedemptions: number | null;
  startsAt: Date | null;
  endsAt: Date | null;
  active: boolean;
}

export type CouponPatch = Partial<CouponFields>;

function couponFromRow(row: CouponRow, orderCount: number, now: Date): Coupon {
  const startsAt = toDate(row.starts_at);
  const endsAt = toDate(row.ends_at);
  const maxRedemptions = row.max_redemptions === null ? null : Number(row.max_redemptions);
  const redeemedCount = Number(row.redeemed_count);
  const active = Boolean(row.active);
  const redeemable =
    active &&
    (startsAt === null || startsAt.getTime() <= now.getTime()) &&
    (endsAt === null || now.getTime() < endsAt.getTime()) &&
    (maxRedemptions === null || redeemedCount < maxRedemptions);
  return {
    id: Number(row.id),
    code: row.code,
    title: row.title,
    discountKind: row.discount_kind === 'amount' ? 'amount' : 'percent',
    percentOff: row.percent_off === null ? null : Number(row.percent_off),
    amountOff: moneyFromColumns(row.amount_off_amount, row.amount_off_currency),
    maxRedemptions,
    redeemedCount,
    orderCount,
    startsAt,
    endsAt,
    active,
    redeemable,
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

/** How many payment attempts refer to each coupon: one grouped query for a page. */
async function orderCounts(db: Queryable, couponIds: readonly number[]): Promise<Map<number, number>> {
  if (couponIds.length === 0) return new Map();
  const rows = (await db('payment_adjustments')
    .whereIn('coupon_id', [...couponIds])
    .groupBy('coupon_id')
    .select('coupon_id')
    .countDistinct({ orders: 'payment_id' })) as Array<{ coupon_id: number | string; orders: number | string }>;
  return new Map(rows.map((row) => [Number(row.coupon_id), numberOf(row.orders)]));
}

async function withOrderCounts(db: Queryable, rows: readonly CouponRow[], now = new Date()): Promise<Coupon[]> {
  const counts = await orderCounts(
    db,
    rows.map((row) => Number(row.id)),
  );
  return rows.map((row) => couponFromRow(row, counts.get(Number(row.id)) ?? 0, now));
}

export async function requireCoupon(db: Queryable, siteId: number, couponId: number): Promise<Coupon> {
  const row = (await db('coupons').where({ site_id: siteId, id: couponId }).first()) as CouponRow | undefined;
  if (!row) throw new NotFoundError(`This site has no coupon ${couponId}.`);
  const [coupon] = await withOrderCounts(db, [row]);
  if (!coupon) throw new NotFoundError(`This site has no coupon ${couponId}.`);
  return coupon;
}

// --- Listing ----------------------------------------------------------------------------------------------------------

export interface CouponFilters {
  active?: boolean | undefined;
  q?: string | undefined;
}

const COUPON_SORTS: SortColumns<'createdAt' | 'updatedAt' | 'code'> = {
  createdAt: { column: 'created_at', type: 'time' },
  updatedAt: { column: 'updated_at', type: 'time' },
  code: { column: 'code', type: 'string' },
};

export async function listCoupons(db: Database, siteId: number, filters: CouponFilters, query: ListQuery): Promise<{ coupons: Coupon[]; nextCursor: string | null }> {
  const builder = db('coupons').where({ site_id: siteId });
  if (filters.active !== undefined) builder.andWhere('active', filters.active);
  if (filters.q !== undefined) whereContains(builder, ['code', 'title'], filters.q);
  const page = await listPage<CouponRow, keyof typeof COUPON_SORTS>(builder, query, { sorts: COUPON_SORTS, defaultSort: '-createdAt', filters: { ...filters } });
  return { coupons: await withOrderCounts(db, page.rows), nextCursor: page.nextCursor };
}

// --- Rules ------------------------------------------------------------------------------------------------------------

/** The rules beyond the contract's schema, on the coupon as it would be stored (400 with pointers). */
function checkFields(fields: CouponFields, redeemedCount: number): void {
  const problems: FieldProblem[] = [];
  if (fields.discountKind === 'percent') {
    if (fields.percentOff === null) problems.push({ pointer: '/percentOff', message: 'is required when discountKind is percent' });
    if (fields.amountOff !== null) problems.push({ pointer: '/amountOff', message: 'must be absent or null when discountKind is percent' });
  } else {
    if (fields.amountOff === null) problems.push({ pointer: '/amountOff', message: 'is required when discountKind is amount' });
    else if (fields.amountOff.amount < 1) problems.push({ pointer: '/amountOff/amount', message: 'must be at least 1 (minor units)' });
    if (fields.percentOff !== null) problems.push({ pointer: '/percentOff', message: 'must be absent or null when discountKind is amount' });
  }
  if (fields.startsAt !== null && fields.endsAt !== null && fields.endsAt.getTime() <= fields.startsAt.getTime()) {
    problems.push({ pointer: '/endsAt', message: 'must be after startsAt' });
  }
  if (fields.maxRedemptions !== null && fields.maxRedemptions < redeemedCount) {
    problems.push({ pointer: '/maxRedemptions', message: `must be at least redeemedCount (${redeemedCount})` });
  }
  if (problems.length > 0) throw new ValidationError('The coupon breaks a rule: see errors.', problems);
}

function codeTaken(code: string): ConflictError {
  return new ConflictError(`Another coupon of this site has the code ${code} (codes are compared ignoring case). Choose another code.`, 'code_taken');
}

async function assertCodeFree(db: Queryable, siteId: number, code: string, exceptId: number | null): Promise<void> {
  const builder = db('coupons').where({ site_id: siteId }).whereRaw('lower(code) = ?', [code.toLowerCase()]);
  if (exceptId !== null) builder.andWhereNot('id', exceptId);
  if (await builder.first('id')) throw codeTaken(code);
}

function columnsOf(fields: CouponPatch): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (fields.code !== undefined) columns.code = fields.code;
  if (fields.title !== undefined) columns.title = fields.title;
  if (fields.discountKind !== undefined) columns.discount_kind = fields.discountKind;
  if (fields.percentOff !== undefined) columns.percent_off = fields.percentOff;
  if (fields.amountOff !== undefined) {
    columns.amount_off_amount = fields.amountOff?.amount ?? null;
    columns.amount_off_currency = fields.amountOff?.currency ?? null;
  }
  if (fields.maxRedemptions !== undefined) columns.max_redemptions = fields.maxRedemptions;
  if (fields.startsAt !== undefined) columns.starts_at = fields.startsAt;
  if (fields.endsAt !== undefined) columns.ends_at = fields.endsAt;
  if (fields.active !== undefined) columns.active = fields.active;
  return columns;
}

// --- Changes ----------------------------------------------------------------------------------------------------------

export async function createCoupon(db: Database, siteId: number, fields: CouponFields): Promise<Coupon> {
  checkFields(fields, 0);
  try {
    const id = await withTransaction(db, async (trx) => {
      await assertCodeFree(trx, siteId, fields.code, null);
      const now = new Date();
      const [inserted] = await trx('coupons').insert({ site_id: siteId, ...columnsOf(fields), redeemed_count: 0, version: 1, created_at: now, updated_at: now });
      return Number(inserted);
    });
    return await requireCoupon(db, siteId, id);
  } catch (error) {
    if (isUniqueViolation(error)) throw codeTaken(fields.code);
    throw error;
  }
}

function fieldsOf(coupon: Coupon): CouponFields {
  const { code, title, discountKind, percentOff, amountOff, maxRedemptions, startsAt, endsAt, active } = coupon;
  return { code, title, discountKind, percentOff, amountOff, maxRedemptions, startsAt, endsAt, active };
}

/**
 * Merge patch at `expectedVersion` (412 otherwise). A change of discountKind clears the old kind's field unless the
 * patch sets it; the rules then apply to the merged coupon.
 */
export async function updateCoupon(db: Database, siteId: number, couponId: number, patch: CouponPatch, expectedVersion: number): Promise<Coupon> {
  try {
    await withTransaction(db, async (trx) => {
      const current = await requireCoupon(trx, siteId, couponId);
      const changes: CouponPatch = { ...patch };
      if (patch.discountKind !== undefined && patch.discountKind !== current.discountKind) {
        if (patch.discountKind === 'amount' && patch.percentOff === undefined) changes.percentOff = null;
        if (patch.discountKind === 'percent' && patch.amountOff === undefined) changes.amountOff = null;
      }
      checkFields({ ...fieldsOf(current), ...changes }, current.redeemedCount);
      if (changes.code !== undefined && changes.code.toLowerCase() !== current.code.toLowerCase()) await assertCodeFree(trx, siteId, changes.code, couponId);
      await updateVersionedRow(trx, 'coupons', { site_id: siteId, id: couponId }, expectedVersion, columnsOf(changes), { what: 'coupon', notFound: `This site has no coupon ${couponId}.` });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw codeTaken(patch.code ?? '');
    throw error;
  }
  return requireCoupon(db, siteId, couponId);
}

/** Deletes a coupon no order used; 409 `coupon_in_use` otherwise (deactivate it instead). */
export async function deleteCoupon(db: Database, siteId: number, couponId: number): Promise<void> {
  await withTransaction(db, async (trx: Knex.Transaction) => {
    const coupon = await requireCoupon(trx, siteId, couponId);
    if (coupon.orderCount > 0) {
      throw new ConflictError(
        `Coupon ${coupon.code} is part of ${coupon.orderCount} order(s) and cannot be deleted. Deactivate it instead (PATCH with "active": false): it then cannot be redeemed any more.`,
        'coupon_in_use',
      );
    }
    await trx('coupons').where({ site_id: siteId, id: couponId }).delete();
  });
}
