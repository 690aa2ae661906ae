import type { PaymentResolvers } from '../../../../../generated/graphql/resolvers.js';
import { dateTime, optionalDateTime } from '../../time.js';
import { adjustments } from './adjustments.js';
import { invoice } from './invoice.js';
import { lineitems } from './lineitems.js';

/** `Payment`: plain fields (tradeNo, amount, currency, enums, instructions, refund set, installment) come from the domain record. */
export const Payment: PaymentResolvers = {
  paidAt: (payment) => optionalDateTime(payment.paidAt),
  refundedAt: (payment) => optionalDateTime(payment.refundedAt),
  refundRequestedAt: (payment) => optionalDateTime(payment.refundRequestedAt),
  expiredAt: (payment) => optionalDateTime(payment.expiredAt),
  createdAt: (payment) => dateTime(payment.createdAt),
  adjustments,
  invoice,
  lineitems,
};
