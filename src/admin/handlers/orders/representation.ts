import type { components } from '../../../../generated/admin-api.js';
import type { OrderDetail, OrderSummary } from '../../../commerce/orders.js';

export type OrderSummaryRepresentation = components['schemas']['OrderSummary'];
export type OrderRepresentation = components['schemas']['Order'];

function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

export function orderSummaryRepresentation(order: OrderSummary): OrderSummaryRepresentation {
  return {
    id: order.id,
    tradeNo: order.tradeNo,
    member: order.member,
    state: order.state,
    paymentType: order.paymentType,
    amount: order.amount,
    refundState: order.refundState,
    refundedAmount: order.refundedAmount,
    netAmount: order.netAmount,
    paidAt: iso(order.paidAt),
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
}

export function orderRepresentation(order: OrderDetail): OrderRepresentation {
  return {
    id: order.id,
    tradeNo: order.tradeNo,
    member: order.member,
    state: order.state,
    paymentType: order.paymentType,
    amount: order.amount,
    subtotal: order.subtotal,
    adjustmentTotal: order.adjustmentTotal,
    refundState: order.refundState,
    refundedAmount: order.refundedAmount,
    netAmount: order.netAmount,
    refundRequestedAt: iso(order.refundRequestedAt),
    refundedAt: iso(order.refundedAt),
    paidAt: iso(order.paidAt),
    lineItems: order.lineItems,
    adjustments: order.adjustments,
    invoice: order.invoice === null ? null : { ...order.invoice, issuedAt: iso(order.invoice.issuedAt) },
    installment: order.installment,
    paymentInstructions: order.paymentInstructions === null ? null : { ...order.paymentInstructions, expiresAt: iso(order.paymentInstructions.expiresAt) },
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
}
