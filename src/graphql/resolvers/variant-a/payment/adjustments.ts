import type { PaymentResolvers } from '../../../../../generated/graphql/resolvers.js';
import { paymentAdjustments } from '../../../../member/payments.js';

/** `Payment.adjustments`: coupon and promotion lines (batched: one query per request). */
export const adjustments: NonNullable<PaymentResolvers['adjustments']> = (payment, _args, ctx) => paymentAdjustments(ctx, payment);
