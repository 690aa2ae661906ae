import type { Knex } from 'knex';
import type { Queryable } from '../db/queries.js';

/**
 * The `payments` table and its sub-tables (`payment_line_items`, `payment_adjustments`, `payment_invoices`): their
 * rows, their columns, the site's payments as a query and each sub-table's rows of some payments. The member's
 * payments and the operators' orders read them; what the stored values mean is read in src/member/payments.ts, once
 * for both.
 */

/** A payment row as the drivers answer it (MySQL may answer numbers as strings; times come as Date, string or number). */
export interface PaymentRow extends Record<string, unknown> {
  id: number | string;
  trade_no: string;
  amount: number | string;
  currency: string;
  payment_type: string | null;
  payment_state: string;
  paid_at: unknown;
  bank_code: string | null;
  bank_name: string | null;
  code_no: string | null;
  expired_at: unknown;
  installment_count: number | string | null;
  installment_amount: number | string | null;
  refunding_state: string;
  refunded_amount: number | string;
  refunded_at: unknown;
  refund_requested_at: unknown;
  created_at: unknown;
}

/** The columns every interface reads of a payment, qualified (`payments.id`, …). */
export const PAYMENT_COLUMNS = [
  'id',
  'trade_no',
  'amount',
  'currency',
  'payment_type',
  'payment_state',
  'paid_at',
  'bank_code',
  'bank_name',
  'code_no',
  'expired_at',
  'installment_count',
  'installment_amount',
  'refunding_state',
  'refunded_amount',
  'refunded_at',
  'refund_requested_at',
  'created_at',
].map((column) => `payments.${column}`);

/** The payments of one site: the base of every payments query. */
export function paymentsOfSite(db: Queryable, siteId: number): Knex.QueryBuilder {
  return db('payments').where('payments.site_id', siteId);
}

/** One purchased line of a payment. */
export interface PaymentLineItemRow {
  payment_id: number | string;
  item_kind: string;
  item_id: number | string | null;
  title: string;
  quantity: number | string;
  unit_amount: number | string;
  amount: number | string;
}

/** One coupon or promotion line of a payment. */
export interface PaymentAdjustmentRow {
  payment_id: number | string;
  kind: string;
  code: string | null;
  title: string;
  amount: number | string;
  coupon_id: number | string | null;
}

/** The invoice of a payment. */
export interface PaymentInvoiceRow {
  payment_id: number | string;
  invoice_no: string | null;
  kind: string;
  title: string | null;
  tax_id: string | null;
  carrier: string | null;
  status: string;
  issued_at: unknown;
}

/** The purchased lines of the given payments, in position order. */
export function lineItemsOfPayments(db: Queryable, paymentIds: readonly number[]): Knex.QueryBuilder {
  return db('payment_line_items')
    .whereIn('payment_id', [...new Set(paymentIds)])
    .orderBy('position')
    .orderBy('id')
    .select('payment_id', 'item_kind', 'item_id', 'title', 'quantity', 'unit_amount', 'amount');
}

/** The coupon and promotion lines of the given payments, in position order. */
export function adjustmentsOfPayments(db: Queryable, paymentIds: readonly number[]): Knex.QueryBuilder {
  return db('payment_adjustments').whereIn('payment_id', [...new Set(paymentIds)]).orderBy('position').orderBy('id').select('payment_id', 'kind', 'code', 'title', 'amount', 'coupon_id');
}

/** The invoices of the given payments (at most one each). */
export function invoicesOfPayments(db: Queryable, paymentIds: readonly number[]): Knex.QueryBuilder {
  return db('payment_invoices').whereIn('payment_id', [...new Set(paymentIds)]).select('payment_id', 'invoice_no', 'kind', 'title', 'tax_id', 'carrier', 'status', 'issued_at');
}

/** Rows of a payment sub-table grouped by payment id, in `paymentIds` order. */
export function byPayment<Row extends { payment_id: number | string }>(paymentIds: readonly number[], rows: readonly Row[]): Row[][] {
  const grouped = new Map<number, Row[]>();
  for (const row of rows) {
    const key = Number(row.payment_id);
    const list = grouped.get(key);
    if (list) list.push(row);
    else grouped.set(key, [row]);
  }
  return paymentIds.map((id) => grouped.get(id) ?? []);
}

/**
 * Which `table:id` item references of line items still exist at the site: one query per referenced table, whatever
 * the number of lines.
 */
export async function existingItemKeys(db: Queryable, siteId: number, keys: readonly string[]): Promise<Set<string>> {
  const byTable = new Map<string, Set<number>>();
  for (const key of keys) {
    const [table, id] = key.split(':');
    if (table === undefined || id === undefined) continue;
    const ids = byTable.get(table) ?? new Set<number>();
    ids.add(Number(id));
    byTable.set(table, ids);
  }
  const found = new Set<string>();
  await Promise.all(
    [...byTable].map(async ([table, ids]) => {
      const rows = (await db(table).where('site_id', siteId).whereIn('id', [...ids]).select('id')) as Array<{ id: number | string }>;
      for (const row of rows) found.add(`${table}:${Number(row.id)}`);
    }),
  );
  return found;
}

/** A payment's lines, adjustments and invoices together: three queries, run at once. */
export async function partsOfPayments(db: Queryable, paymentIds: readonly number[]): Promise<{ lineItems: PaymentLineItemRow[]; adjustments: PaymentAdjustmentRow[]; invoices: PaymentInvoiceRow[] }> {
  const [lineItems, adjustments, invoices] = await Promise.all([
    lineItemsOfPayments(db, paymentIds) as Promise<PaymentLineItemRow[]>,
    adjustmentsOfPayments(db, paymentIds) as Promise<PaymentAdjustmentRow[]>,
    invoicesOfPayments(db, paymentIds) as Promise<PaymentInvoiceRow[]>,
  ]);
  return { lineItems, adjustments, invoices };
}
