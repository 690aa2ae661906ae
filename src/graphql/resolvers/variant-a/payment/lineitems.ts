import type { PaymentResolvers } from '../../../../../generated/graphql/resolvers.js';
import { paymentLineItems } from '../../../../member/payments.js';

/** `Payment.lineitems`: purchased lines (batched: one query per request, plus one per referenced catalogue table). */
export const lineitems: NonNullable<PaymentResolvers['lineitems']> = (payment, _args, ctx) => paymentLineItems(ctx, payment);
