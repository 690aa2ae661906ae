import type { Knex } from 'knex';
import { requireDate, toDate } from '../db/connection.js';
import {
  adjustmentsOfPayments,
  byPayment,
  existingItemKeys,
  invoicesOfPayments,
  lineItemsOfPayments,
  PAYMENT_COLUMNS,
  paymentsOfSite,
  type PaymentAdjustmentRow,
  type PaymentInvoiceRow,
  type PaymentLineItemRow,
  type PaymentRow,
} from '../data/payments.js';
import type { MemberContext } from './context.js';
import { encodeNodeId, type NodeType } from './ids.js';
import { fetchPage, pageWindow, SPEC_LIMITED, type Page, type PageArgs, type SortKey, withNodes } from './pagination.js';

/**
 * The viewer's own payments (spec: "Payment node", `viewer.payments`, variant A). One record per payment row: a
 * retried checkout is its own record with its own trade number, and nothing joins the attempts of a purchase.
 * Unpaid and expired rows are listed; an attempt abandoned before a method was chosen (payment_type null) is held
 * back while it is unpaid and not yet past its deadline, and listed like any expired row afterwards.
 *
 * Stored lowercase values (migration 0003, src/import/document.ts) are mapped to the API's enum values here, so
 * every interface (GraphQL, MCP) reports the same vocabulary. Amounts are integer minor units of `currency`.
 */

export type PaymentType = 'CREDIT_CARD' | 'ATM' | 'WEB_ATM' | 'CVS' | 'CVS_BARCODE' | 'APPLE_PAY' | 'GOOGLE_PAY' | 'LINE_PAY' | 'FREE' | 'OTHER';
export type PaymentState = 'UNPAID' | 'PAID' | 'EXPIRED' | 'FAILED' | 'CANCELED';
export type RefundingState = 'NONE' | 'REQUESTED' | 'PROCESSING' | 'PARTIALLY_REFUNDED' | 'REFUNDED' | 'REJECTED';
export type PaymentAdjustmentKind = 'COUPON' | 'PROMOTION';
export type PaymentInvoiceType = 'PERSONAL' | 'COMPANY' | 'DONATION';
export type PaymentInvoiceStatus = 'PENDING' | 'ISSUED' | 'VOIDED';
export type PaymentLineItemKind = 'COURSE' | 'DIGITAL_PRODUCT' | 'CONSULTING_SERVICE' | 'EVENT' | 'MEMBERSHIP_PLAN' | 'OTHER';

export interface PaymentInstallment {
  count: number;
  /** The first installment absorbs the rounding remainder: amount - (count - 1) × perInstallmentAmount. */
  firstInstallmentAmount: number;
  perInstallmentAmount: number;
}

export interface ViewerPayment {
  /** Opaque `Payment` node id. */
  id: string;
  dbId: number;
  tradeNo: string;
  amount: number;
  currency: string;
  /** Null when the checkout was abandoned before a method was chosen. */
  paymentType: PaymentType | null;
  /** An unpaid row past its deadline reads as EXPIRED (the deadline has passed whether or not a job updated the row). */
  paymentState: PaymentState;
  paidAt: Date | null;
  installment: PaymentInstallment | null;
  refundingState: RefundingState;
  refundedAmount: number;
  refundedAt: Date | null;
  refundRequestedAt: Date | null;
  /** Payment instructions: set only for ATM (bank fields) and convenience-store payments that are unpaid or expired. */
  bankCode: string | null;
  bankName: string | null;
  codeNo: string | null;
  expiredAt: Date | null;
  createdAt: Date;
}

export interface ViewerPaymentAdjustment {
  kind: PaymentAdjustmentKind;
  /** The coupon code; null for promotions. */
  code: string | null;
  title: string;
  /** Signed; negative for a discount. */
  amount: number;
}

export interface ViewerPaymentInvoice {
  number: string | null;
  type: PaymentInvoiceType;
  /** Company name; null unless type is COMPANY. */
  title: string | null;
  /** Company tax id; null unless type is COMPANY. */
  taxId: string | null;
  status: PaymentInvoiceStatus;
  issuedAt: Date | null;
}

export interface ViewerPaymentLineItem {
  title: string;
  kind: PaymentLineItemKind;
  quantity: number;
  unitAmount: number;
  amount: number;
  /** Node id of the purchased item (e.g. the `Course` id); null for OTHER lines and when the item no longer exists. */
  productId: string | null;
}

const PAYMENT_TYPES: Readonly<Record<string, PaymentType>> = {
  credit_card: 'CREDIT_CARD',
  atm: 'ATM',
  web_atm: 'WEB_ATM',
  webatm: 'WEB_ATM',
  convenience_store: 'CVS',
  cvs: 'CVS',
  cvs_barcode: 'CVS_BARCODE',
  barcode: 'CVS_BARCODE',
  apple_pay: 'APPLE_PAY',
  google_pay: 'GOOGLE_PAY',
  line_pay: 'LINE_PAY',
  free: 'FREE',
};

const PAYMENT_STATES: Readonly<Record<string, PaymentState>> = {
  unpaid: 'UNPAID',
  paid: 'PAID',
  expired: 'EXPIRED',
  failed: 'FAILED',
  canceled: 'CANCELED',
  cancelled: 'CANCELED',
};

const REFUNDING_STATES: Readonly<Record<string, RefundingState>> = {
  none: 'NONE',
  requested: 'REQUESTED',
  processing: 'PROCESSING',
  partially_refunded: 'PARTIALLY_REFUNDED',
  refunded: 'REFUNDED',
  rejected: 'REJECTED',
};

/** Stored invoice kinds: the Taiwanese e-invoice carriers (mobile barcode, citizen certificate, member carrier) are personal invoices. */
const INVOICE_TYPES: Readonly<Record<string, PaymentInvoiceType>> = {
  personal: 'PERSONAL',
  mobile_barcode: 'PERSONAL',
  citizen_certificate: 'PERSONAL',
  member_carrier: 'PERSONAL',
  company: 'COMPANY',
  donation: 'DONATION',
};

const INVOICE_STATUSES: Readonly<Record<string, PaymentInvoiceStatus>> = { pending: 'PENDING', issued: 'ISSUED', voided: 'VOIDED' };

/**
 * Line-item kinds with the table the item id points into and the node type its id is encoded as. Membership plans
 * appear in no entitlement list and have no node type, so their lines carry no productId.
 */
const LINE_ITEM_KINDS: Readonly<Record<string, { kind: PaymentLineItemKind; table: string; nodeType: NodeType | null } | undefined>> = {
  course: { kind: 'COURSE', table: 'courses', nodeType: 'Course' },
  digital_product: { kind: 'DIGITAL_PRODUCT', table: 'digital_products', nodeType: 'DigitalProduct' },
  consulting: { kind: 'CONSULTING_SERVICE', table: 'consulting_services', nodeType: 'ConsultingService' },
  event: { kind: 'EVENT', table: 'events', nodeType: 'Event' },
  membership_plan: { kind: 'MEMBERSHIP_PLAN', table: 'membership_plans', nodeType: null },
};

/** Methods that come with payment instructions (spec: "ATM or convenience-store payments"). */
const INSTRUCTION_TYPES: ReadonlySet<PaymentType> = new Set(['ATM', 'CVS', 'CVS_BARCODE']);

/** The stored (lowercase) values that read as `value`: for filtering in SQL on what the API reports. */
export function storedPaymentTypes(value: PaymentType): string[] {
  return Object.keys(PAYMENT_TYPES).filter((key) => PAYMENT_TYPES[key] === value);
}

/** Every stored payment type with a name of its own; any other non-null value reads as OTHER. */
export function knownStoredPaymentTypes(): string[] {
  return Object.keys(PAYMENT_TYPES);
}

export function storedPaymentStates(value: PaymentState): string[] {
  return Object.keys(PAYMENT_STATES).filter((key) => PAYMENT_STATES[key] === value);
}

export function storedRefundingStates(value: RefundingState): string[] {
  return Object.keys(REFUNDING_STATES).filter((key) => REFUNDING_STATES[key] === value);
}

export function mapPaymentType(value: string | null): PaymentType | null {
  if (value === null) return null;
  return PAYMENT_TYPES[value.toLowerCase()] ?? 'OTHER';
}

/** Newest first by creation; the id breaks ties (spec: "ordered newest first"). */
const PAYMENT_ORDER: SortKey = [
  { column: 'payments.created_at', descending: true, time: true },
  { column: 'payments.id', descending: true },
];

export { PAYMENT_COLUMNS, type PaymentRow } from '../data/payments.js';

/** The viewer's listed payments at the context's site (spec: Payment node rules 2 and 3). */
function viewerPaymentsQuery(ctx: MemberContext): Knex.QueryBuilder {
  return paymentsOfSite(ctx.db, ctx.site.id)
    .select(PAYMENT_COLUMNS)
    .where('payments.user_id', ctx.userId)
    .whereNot((abandoned) => {
      // Held back: no method chosen, still unpaid, deadline not reached (or none).
      abandoned
        .whereNull('payments.payment_type')
        .where('payments.payment_state', 'unpaid')
        .where((open) => open.whereNull('payments.expired_at').orWhere('payments.expired_at', '>', ctx.now));
    });
}

function money(value: number | string | null): number {
  return value === null ? 0 : Number(value);
}

function installmentOf(amount: number, countValue: number | string | null, perValue: number | string | null): PaymentInstallment | null {
  if (countValue === null) return null;
  const count = Number(countValue);
  if (!Number.isInteger(count) || count < 1) return null;
  const per = perValue === null ? Math.floor(amount / count) : Number(perValue);
  return { count, firstInstallmentAmount: amount - per * (count - 1), perInstallmentAmount: per };
}

/**
 * A payment row as every interface reports it, at `now` (an unpaid row past its deadline reads as EXPIRED). Shared with
 * the admin API's orders (src/commerce/orders.ts), so both report the same states, refunds and instructions.
 */
export function paymentFromRow(row: PaymentRow, now: Date): ViewerPayment {
  const dbId = Number(row.id);
  const amount = money(row.amount);
  const paymentType = mapPaymentType(row.payment_type);
  const expiredAt = toDate(row.expired_at);
  let paymentState = PAYMENT_STATES[row.payment_state.toLowerCase()] ?? 'FAILED';
  if (paymentState === 'UNPAID' && expiredAt !== null && expiredAt.getTime() <= now.getTime()) paymentState = 'EXPIRED';
  const instructions = paymentType !== null && INSTRUCTION_TYPES.has(paymentType) && (paymentState === 'UNPAID' || paymentState === 'EXPIRED');
  const bankInstructions = instructions && paymentType === 'ATM';
  return {
    id: encodeNodeId('Payment', dbId),
    dbId,
    tradeNo: row.trade_no,
    amount,
    currency: row.currency.toUpperCase(),
    paymentType,
    paymentState,
    paidAt: toDate(row.paid_at),
    installment: installmentOf(amount, row.installment_count, row.installment_amount),
    refundingState: REFUNDING_STATES[row.refunding_state.toLowerCase()] ?? 'NONE',
    refundedAmount: money(row.refunded_amount),
    refundedAt: toDate(row.refunded_at),
    refundRequestedAt: toDate(row.refund_requested_at),
    bankCode: bankInstructions ? row.bank_code : null,
    bankName: bankInstructions ? row.bank_name : null,
    codeNo: instructions ? row.code_no : null,
    expiredAt: instructions ? expiredAt : null,
    createdAt: requireDate(row.created_at),
  };
}

/** One page of the viewer's payments, newest first, at most 50 (spec: "Limits"). Throws ValidationError for bad window arguments. */
export async function listViewerPayments(ctx: MemberContext, args: PageArgs): Promise<Page<ViewerPayment>> {
  const window = pageWindow(args, SPEC_LIMITED, PAYMENT_ORDER);
  const page = await fetchPage<PaymentRow>(() => viewerPaymentsQuery(ctx), PAYMENT_ORDER, window);
  return withNodes(page, page.nodes.map((row) => paymentFromRow(row, ctx.now)));
}

/** Rows of a payment sub-table for many payments in one query, grouped by payment id in `keys` order. */
async function rowsByPayment<Row extends { payment_id: number | string }>(keys: readonly number[], query: Knex.QueryBuilder): Promise<Row[][]> {
  return byPayment(keys, (await query) as Row[]);
}

/** Coupon and promotion lines of one of the viewer's payments, in position order; batched per request. */
export async function paymentAdjustments(ctx: MemberContext, payment: Pick<ViewerPayment, 'dbId'>): Promise<ViewerPaymentAdjustment[]> {
  const rows = await ctx
    .loader<number, PaymentAdjustmentRow[]>('viewerPayments.adjustments', (ids) =>
      rowsByPayment<PaymentAdjustmentRow>(ids, adjustmentsOfPayments(ctx.db, ids)),
    )
    .load(payment.dbId);
  return rows.map(adjustmentFromRow);
}

/** One coupon or promotion line as every interface reports it. */
export function adjustmentFromRow(row: Pick<PaymentAdjustmentRow, 'kind' | 'code' | 'title' | 'amount'>): ViewerPaymentAdjustment {
  const kind: PaymentAdjustmentKind = row.kind.toLowerCase() === 'coupon' ? 'COUPON' : 'PROMOTION';
  return { kind, code: kind === 'COUPON' ? row.code : null, title: row.title, amount: money(row.amount) };
}


/** The invoice of one of the viewer's payments, or null; batched per request. */
export async function paymentInvoice(ctx: MemberContext, payment: Pick<ViewerPayment, 'dbId'>): Promise<ViewerPaymentInvoice | null> {
  const rows = await ctx
    .loader<number, PaymentInvoiceRow[]>('viewerPayments.invoice', (ids) =>
      rowsByPayment<PaymentInvoiceRow>(ids, invoicesOfPayments(ctx.db, ids)),
    )
    .load(payment.dbId);
  const row = rows[0];
  return row ? invoiceFromRow(row) : null;
}

/** An invoice row as every interface reports it. */
export function invoiceFromRow(row: Omit<PaymentInvoiceRow, 'payment_id'>): ViewerPaymentInvoice {
  const type = INVOICE_TYPES[row.kind.toLowerCase()] ?? 'PERSONAL';
  return {
    number: row.invoice_no,
    type,
    title: type === 'COMPANY' ? row.title : null,
    taxId: type === 'COMPANY' ? row.tax_id : null,
    status: INVOICE_STATUSES[row.status.toLowerCase()] ?? 'PENDING',
    issuedAt: toDate(row.issued_at),
  };
}


/** Which `table:id` item references still exist at the site: one query per referenced table per request. */
function existingItems(ctx: MemberContext) {
  return ctx.loader<string, boolean>('viewerPayments.lineItemTargets', async (keys) => {
    const found = await existingItemKeys(ctx.db, ctx.site.id, keys);
    return keys.map((key) => found.has(key));
  });
}

/** One purchased line as every interface reads it; `itemKey` is the `table:id` its item would have (null for none). */
export function lineItemFromRow(row: PaymentLineItemRow): { kind: PaymentLineItemKind; nodeType: NodeType | null; itemId: number | null; itemKey: string | null; title: string; quantity: number; unitAmount: number; amount: number } {
  const target = LINE_ITEM_KINDS[row.item_kind.toLowerCase()];
  const itemId = row.item_id === null ? null : Number(row.item_id);
  return {
    kind: target?.kind ?? 'OTHER',
    nodeType: target?.nodeType ?? null,
    itemId,
    itemKey: target !== undefined && itemId !== null ? `${target.table}:${itemId}` : null,
    title: row.title,
    quantity: Number(row.quantity),
    unitAmount: money(row.unit_amount),
    amount: money(row.amount),
  };
}

/** Purchased lines of one of the viewer's payments, in position order; batched per request. */
export async function paymentLineItems(ctx: MemberContext, payment: Pick<ViewerPayment, 'dbId'>): Promise<ViewerPaymentLineItem[]> {
  const rows = await ctx
    .loader<number, PaymentLineItemRow[]>('viewerPayments.lineItems', (ids) =>
      rowsByPayment<PaymentLineItemRow>(ids, lineItemsOfPayments(ctx.db, ids)),
    )
    .load(payment.dbId);
  const targets = existingItems(ctx);
  return Promise.all(
    rows.map(async (row) => {
      const line = lineItemFromRow(row);
      const exists = line.nodeType !== null && line.itemKey !== null ? await targets.load(line.itemKey) : false;
      return {
        title: line.title,
        kind: line.kind,
        quantity: line.quantity,
        unitAmount: line.unitAmount,
        amount: line.amount,
        productId: exists && line.nodeType !== null && line.itemId !== null ? encodeNodeId(line.nodeType, line.itemId) : null,
      };
    }),
  );
}
