import { z } from 'zod';
import { SPEC_LIMITED } from '../../../member/pagination.js';
import { listViewerPayments, paymentAdjustments, paymentInvoice, paymentLineItems } from '../../../member/payments.js';
import { forwardPageInfo, optionalDateTime, dateTime as formatDateTime } from '../../format.js';
import { dateTime, pageInfo, pageInput, totalCount } from '../../schemas.js';
import { defineTool, READ_ONLY } from '../../tool.js';

const minor = (what: string) => z.number().int().describe(`${what}, integer minor units of the payment's currency.`);

export const listMyPayments = defineTool({
  name: 'list_my_payments',
  title: 'My payments',
  description:
    "The signed-in member's payment history at this school, newest first: one item per payment attempt (a retried checkout is a separate item with its own tradeNo; nothing groups the attempts of one purchase). Unpaid and expired payments are included, with the ATM or convenience-store payment instructions (bankCode, bankName, codeNo, expiredAt) while they apply. Each payment has its purchased lines, coupon and promotion adjustments, invoice, installment plan and refund state. Amounts are integer minor units of `currency`. Needs a member token with account:read.",
  scopes: ['account:read'],
  needs: ['payments'],
  input: z.object(pageInput(SPEC_LIMITED.defaultSize, SPEC_LIMITED.maxSize)),
  output: z.object({
    payments: z.array(
      z.object({
        id: z.string().describe('Opaque payment id.'),
        tradeNo: z.string().describe('Identifies this payment (not the purchase).'),
        amount: minor('Amount charged'),
        currency: z.string().describe('ISO 4217 code.'),
        paymentType: z.string().nullable().describe('CREDIT_CARD, ATM, WEB_ATM, CVS, CVS_BARCODE, APPLE_PAY, GOOGLE_PAY, LINE_PAY, FREE or OTHER; null when no method was chosen.'),
        paymentState: z.enum(['UNPAID', 'PAID', 'EXPIRED', 'FAILED', 'CANCELED']),
        paidAt: dateTime.nullable(),
        createdAt: dateTime,
        refundingState: z.enum(['NONE', 'REQUESTED', 'PROCESSING', 'PARTIALLY_REFUNDED', 'REFUNDED', 'REJECTED']),
        refundedAmount: minor('Amount refunded'),
        refundedAt: dateTime.nullable(),
        refundRequestedAt: dateTime.nullable(),
        bankCode: z.string().nullable().describe('ATM transfer: bank code, while unpaid or expired.'),
        bankName: z.string().nullable(),
        codeNo: z.string().nullable().describe('ATM account or convenience-store payment code, while unpaid or expired.'),
        expiredAt: dateTime.nullable().describe('Deadline of the payment instructions.'),
        installment: z
          .object({ count: z.number().int(), firstInstallmentAmount: minor('First installment'), perInstallmentAmount: minor('Each later installment') })
          .nullable()
          .describe('Monthly card installments; null for payment in full.'),
        adjustments: z.array(
          z.object({ kind: z.enum(['COUPON', 'PROMOTION']), code: z.string().nullable().describe('Coupon code; null for promotions.'), title: z.string(), amount: minor('Signed adjustment (negative = discount)') }),
        ),
        invoice: z
          .object({
            number: z.string().nullable().describe('Null until issued.'),
            type: z.enum(['PERSONAL', 'COMPANY', 'DONATION']),
            title: z.string().nullable().describe('Company name on a COMPANY invoice.'),
            taxId: z.string().nullable(),
            status: z.enum(['PENDING', 'ISSUED', 'VOIDED']),
            issuedAt: dateTime.nullable(),
          })
          .nullable(),
        lineitems: z.array(
          z.object({
            title: z.string(),
            kind: z.enum(['COURSE', 'DIGITAL_PRODUCT', 'CONSULTING_SERVICE', 'EVENT', 'MEMBERSHIP_PLAN', 'OTHER']),
            quantity: z.number().int(),
            unitAmount: minor('Unit price'),
            amount: minor('Line total'),
            productId: z.string().nullable().describe('Id of the purchased item (e.g. a course id); null when gone or not a catalogue item.'),
          }),
        ),
      }),
    ),
    pageInfo,
    totalCount,
  }),
  annotations: READ_ONLY,
  async run(input, context) {
    const member = context.member();
    const page = await listViewerPayments(member, { first: input.first ?? null, after: input.cursor ?? null });
    // Sub-records of every payment on the page load together (one query per sub-table).
    const payments = await Promise.all(
      page.nodes.map(async (payment) => {
        const [adjustments, invoice, lineitems] = await Promise.all([paymentAdjustments(member, payment), paymentInvoice(member, payment), paymentLineItems(member, payment)]);
        return {
          id: payment.id,
          tradeNo: payment.tradeNo,
          amount: payment.amount,
          currency: payment.currency,
          paymentType: payment.paymentType,
          paymentState: payment.paymentState,
          paidAt: optionalDateTime(payment.paidAt),
          createdAt: formatDateTime(payment.createdAt),
          refundingState: payment.refundingState,
          refundedAmount: payment.refundedAmount,
          refundedAt: optionalDateTime(payment.refundedAt),
          refundRequestedAt: optionalDateTime(payment.refundRequestedAt),
          bankCode: payment.bankCode,
          bankName: payment.bankName,
          codeNo: payment.codeNo,
          expiredAt: optionalDateTime(payment.expiredAt),
          installment: payment.installment,
          adjustments,
          invoice: invoice === null ? null : Object.assign({}, invoice, { issuedAt: optionalDateTime(invoice.issuedAt) }),
          lineitems,
        };
      }),
    );
    return { payments, pageInfo: forwardPageInfo(page), totalCount: page.totalCount };
  },
});
