import { joinSiteProfile, profileColumn } from '../accounts/site-profiles.js';
import type { Knex } from 'knex';
import { requireDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import {
  adjustmentFromRow,
  invoiceFromRow,
  knownStoredPaymentTypes,
  lineItemFromRow,
  paymentFromRow,
  storedPaymentStates,
  storedPaymentTypes,
  storedRefundingStates,
  type PaymentLineItemKind,
  type PaymentState,
  type PaymentType,
  type RefundingState,
  type ViewerPayment,
  type ViewerPaymentInvoice,
} from '../member/payments.js';
import { existingItemKeys, PAYMENT_COLUMNS, partsOfPayments, paymentsOfSite, type PaymentInvoiceRow, type PaymentRow } from '../data/payments.js';
import { NotFoundError } from '../shared/errors.js';
import { moneyOf } from './common.js';
import type { Money } from '../shared/money.js';

/**
 * The site's payments as operators see them (admin API `/orders`, read-only; docs/admin-commerce.md). One order is
 * one payment attempt. Every derived value (state, payment method, refund state, instructions, installment, invoice
 * type) comes from the member API's derivations in src/member/payments.ts, so a member and an operator always read
 * the same payment the same way; the admin vocabulary is the lower-case form of the member API's enums.
 */

export type OrderState = Lowercase<PaymentState>;
export type OrderRefundState = Lowercase<RefundingState>;
export type OrderPaymentType = Lowercase<PaymentType>;
export type OrderLineItemKind = Lowercase<PaymentLineItemKind>;

export interface OrderMember {
  id: number;
  name: string;
  email: string;
}

export interface OrderSummary {
  id: number;
  tradeNo: string;
  member: OrderMember;
  state: OrderState;
  paymentType: OrderPaymentType | null;
  amount: Money;
  refundState: OrderRefundState;
  refundedAmount: Money;
  /** What the school keeps: the amount minus refunds for a paid order, zero for any other. */
  netAmount: Money;
  paidAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface OrderLineItem {
  kind: OrderLineItemKind;
  /** The purchased item's id while it still exists at the site; null for OTHER lines. */
  itemId: number | null;
  title: string;
  quantity: number;
  unitAmount: Money;
  amount: Money;
}

export interface OrderAdjustment {
  kind: 'coupon' | 'promotion';
  code: string | null;
  couponId: number | null;
  title: string;
  amount: Money;
}

export interface OrderInvoice {
  number: string | null;
  type: Lowercase<ViewerPaymentInvoice['type']>;
  title: string | null;
  taxId: string | null;
  carrier: string | null;
  status: Lowercase<ViewerPaymentInvoice['status']>;
  issuedAt: Date | null;
}

export interface OrderDetail extends OrderSummary {
  subtotal: Money;
  adjustmentTotal: Money;
  refundRequestedAt: Date | null;
  refundedAt: Date | null;
  lineItems: OrderLineItem[];
  adjustments: OrderAdjustment[];
  invoice: OrderInvoice | null;
  installment: { count: number; firstInstallmentAmount: Money; perInstallmentAmount: Money; interval: 'week' | 'month' | null } | null;
  paymentInstructions: { bankCode: string | null; bankName: string | null; codeNo: string | null; expiresAt: Date | null } | null;
}

interface OrderRow extends PaymentRow {
  user_id: number | string;
  updated_at: unknown;
  installment_interval: string | null;
  member_name: string;
  member_email: string;
}

function lower<T extends string>(value: T): Lowercase<T> {
  return value.toLowerCase() as Lowercase<T>;
}

function ordersQuery(db: Database, siteId: number): Knex.QueryBuilder {
  return joinSiteProfile(paymentsOfSite(db, siteId).join('users', 'users.id', 'payments.user_id'), siteId, 'payments.user_id')
    .select([...PAYMENT_COLUMNS, 'payments.user_id', 'payments.updated_at', 'payments.installment_interval', profileColumn(db, 'name', 'member_name'), 'users.email as member_email']);
}

/** Net of a payment as the orders and the analytics count it: paid amount minus refunds; nothing for unpaid ones. */
export function netAmountOf(payment: Pick<ViewerPayment, 'paymentState' | 'amount' | 'refundedAmount'>): number {
  return payment.paymentState === 'PAID' ? payment.amount - payment.refundedAmount : 0;
}

function summaryOf(row: OrderRow, payment: ViewerPayment): OrderSummary {
  const currency = payment.currency;
  return {
    id: payment.dbId,
    tradeNo: payment.tradeNo,
    member: { id: Number(row.user_id), name: row.member_name, email: row.member_email },
    state: lower(payment.paymentState),
    paymentType: payment.paymentType === null ? null : lower(payment.paymentType),
    amount: moneyOf(payment.amount, currency),
    refundState: lower(payment.refundingState),
    refundedAmount: moneyOf(payment.refundedAmount, currency),
    netAmount: moneyOf(netAmountOf(payment), currency),
    paidAt: payment.paidAt,
    createdAt: payment.createdAt,
    updatedAt: requireDate(row.updated_at),
  };
}

// --- Listing ----------------------------------------------------------------------------------------------------------

export interface OrderFilters {
  state?: OrderState | undefined;
  refundState?: OrderRefundState | undefined;
  userId?: number | undefined;
  paymentType?: OrderPaymentType | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
}

const ORDER_SORTS: SortColumns<'createdAt' | 'amount'> = {
  createdAt: { column: 'payments.created_at', type: 'time' },
  amount: { column: 'payments.amount', type: 'number' },
};

function upper<T extends string>(value: T): Uppercase<T> {
  return value.toUpperCase() as Uppercase<T>;
}

/** `lower(column) [not] in (values)`: stored values compared the way the member derivations read them. */
function whereLowerIn(builder: Knex.QueryBuilder, column: string, values: readonly string[], negate = false): Knex.QueryBuilder {
  if (values.length === 0) return negate ? builder : builder.whereRaw('1 = 0');
  return builder.whereRaw(`lower(??) ${negate ? 'not in' : 'in'} (${values.map(() => '?').join(', ')})`, [column, ...values]);
}

/**
 * The derived state in SQL, exactly as paymentFromRow reads a row at `now`: an unpaid row past its deadline is
 * expired, an unknown stored state reads as failed.
 */
function whereState(builder: Knex.QueryBuilder, state: OrderState, now: Date): void {
  const stateColumn = 'payments.payment_state';
  const stored = (value: PaymentState) => storedPaymentStates(value);
  const overdue = (query: Knex.QueryBuilder) => query.whereNotNull('payments.expired_at').andWhere('payments.expired_at', '<=', now);
  if (state === 'unpaid') {
    whereLowerIn(builder, stateColumn, stored('UNPAID')).andWhereNot(overdue);
  } else if (state === 'expired') {
    builder.andWhere((either) => whereLowerIn(either, stateColumn, stored('EXPIRED')).orWhere((late) => whereLowerIn(late, stateColumn, stored('UNPAID')).andWhere(overdue)));
  } else if (state === 'failed') {
    const known = (['UNPAID', 'PAID', 'EXPIRED', 'FAILED', 'CANCELED'] as const).filter((value) => value !== 'FAILED').flatMap(stored);
    whereLowerIn(builder, stateColumn, known, true);
  } else {
    whereLowerIn(builder, stateColumn, stored(upper(state)));
  }
}

/** One keyset page of the site's orders, newest first unless `sort` says otherwise. */
export async function listOrders(db: Database, siteId: number, filters: OrderFilters, query: ListQuery, now = new Date()): Promise<{ orders: OrderSummary[]; nextCursor: string | null }> {
  const builder = ordersQuery(db, siteId);
  const { state, refundState, userId, paymentType, createdFrom, createdTo } = filters;
  if (state !== undefined) whereState(builder, state, now);
  if (refundState !== undefined) {
    const refundColumn = 'payments.refunding_state';
    if (refundState === 'none') {
      // Unknown stored values read as NONE too.
      const others = (['REQUESTED', 'PROCESSING', 'PARTIALLY_REFUNDED', 'REFUNDED', 'REJECTED'] as const).flatMap(storedRefundingStates);
      whereLowerIn(builder, refundColumn, others, true);
    } else {
      whereLowerIn(builder, refundColumn, storedRefundingStates(upper(refundState)));
    }
  }
  if (userId !== undefined) builder.andWhere('payments.user_id', userId);
  if (paymentType !== undefined) {
    const typeColumn = 'payments.payment_type';
    if (paymentType === 'other') whereLowerIn(builder.whereNotNull(typeColumn), typeColumn, knownStoredPaymentTypes(), true);
    else whereLowerIn(builder, typeColumn, storedPaymentTypes(upper(paymentType)));
  }
  if (createdFrom !== undefined) builder.andWhere('payments.created_at', '>=', new Date(createdFrom));
  if (createdTo !== undefined) builder.andWhere('payments.created_at', '<', new Date(createdTo));
  const page = await listPage<OrderRow, keyof typeof ORDER_SORTS>(builder, query, {
    sorts: ORDER_SORTS,
    defaultSort: '-createdAt',
    filters: { ...filters },
    idColumn: 'payments.id',
  });
  return { orders: page.rows.map((row) => summaryOf(row, paymentFromRow(row, now))), nextCursor: page.nextCursor };
}

// --- One order --------------------------------------------------------------------------------------------------------

function invoiceOf(row: PaymentInvoiceRow | undefined): OrderInvoice | null {
  if (!row) return null;
  const invoice = invoiceFromRow(row);
  return {
    number: invoice.number,
    type: lower(invoice.type),
    title: invoice.title,
    taxId: invoice.taxId,
    carrier: row.carrier,
    status: lower(invoice.status),
    issuedAt: invoice.issuedAt,
  };
}

/** One order of the site with its lines, adjustments and invoice; NotFoundError for any other site's. */
export async function requireOrder(db: Database, siteId: number, orderId: number, now = new Date()): Promise<OrderDetail> {
  const row = (await ordersQuery(db, siteId).andWhere('payments.id', orderId).first()) as OrderRow | undefined;
  if (!row) throw new NotFoundError(`This site has no order ${orderId}.`);
  const payment = paymentFromRow(row, now);
  const currency = payment.currency;
  const { lineItems: lineRows, adjustments: adjustmentRows, invoices: invoiceRows } = await partsOfPayments(db, [orderId]);
  const lines = lineRows.map(lineItemFromRow);
  const existing = await existingItemKeys(
    db,
    siteId,
    lines.flatMap((line) => (line.itemKey === null ? [] : [line.itemKey])),
  );
  const lineItems = lines.map(
    (line): OrderLineItem => ({
      kind: lower(line.kind),
      itemId: line.itemKey !== null && existing.has(line.itemKey) ? line.itemId : null,
      title: line.title,
      quantity: line.quantity,
      unitAmount: moneyOf(line.unitAmount, currency),
      amount: moneyOf(line.amount, currency),
    }),
  );
  const adjustments = adjustmentRows.map((adjustmentRow): OrderAdjustment => {
    const adjustment = adjustmentFromRow(adjustmentRow);
    return {
      kind: lower(adjustment.kind),
      code: adjustment.code,
      couponId: adjustment.kind === 'COUPON' && adjustmentRow.coupon_id !== null ? Number(adjustmentRow.coupon_id) : null,
      title: adjustment.title,
      amount: moneyOf(adjustment.amount, currency),
    };
  });
  const interval = row.installment_interval === 'week' || row.installment_interval === 'month' ? row.installment_interval : null;
  const hasInstructions = payment.bankCode !== null || payment.bankName !== null || payment.codeNo !== null || payment.expiredAt !== null;
  return {
    ...summaryOf(row, payment),
    subtotal: moneyOf(
      lineItems.reduce((sum, line) => sum + line.amount.amount, 0),
      currency,
    ),
    adjustmentTotal: moneyOf(
      adjustments.reduce((sum, adjustment) => sum + adjustment.amount.amount, 0),
      currency,
    ),
    refundRequestedAt: payment.refundRequestedAt,
    refundedAt: payment.refundedAt,
    lineItems,
    adjustments,
    invoice: invoiceOf(invoiceRows[0]),
    installment: payment.installment
      ? {
          count: payment.installment.count,
          firstInstallmentAmount: moneyOf(payment.installment.firstInstallmentAmount, currency),
          perInstallmentAmount: moneyOf(payment.installment.perInstallmentAmount, currency),
          interval,
        }
      : null,
    paymentInstructions: hasInstructions ? { bankCode: payment.bankCode, bankName: payment.bankName, codeNo: payment.codeNo, expiresAt: payment.expiredAt } : null,
  };
}

