import type { PaymentResolvers } from '../../../../../generated/graphql/resolvers.js';
import { paymentInvoice } from '../../../../member/payments.js';
import { optionalDateTime } from '../../time.js';

/** `Payment.invoice` (batched: one query per request). */
export const invoice: NonNullable<PaymentResolvers['invoice']> = async (payment, _args, ctx) => {
  const found = await paymentInvoice(ctx, payment);
  return found ? { ...found, issuedAt: optionalDateTime(found.issuedAt) } : null;
};
