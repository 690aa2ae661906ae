import type { LineItemInput, PaymentInput } from '../document.js';
import { optionalTime, time, type IdMap, type ImportContext } from '../context.js';
import { moneyColumns } from '../../shared/money.js';

/** Digital products (keyed by externalId, or slug) and who owns them. */
export async function importDigitalProducts(ctx: ImportContext): Promise<void> {
  for (const product of ctx.document.digitalProducts ?? []) {
    const productId = await ctx.save(
      'digital_products',
      [
        { site_id: ctx.siteId, external_id: product.externalId },
        { site_id: ctx.siteId, slug: product.slug },
      ],
      {
        slug: product.slug,
        title: product.title,
        description: product.description ?? null,
        kind: product.kind,
        cover_image_url: product.coverImageUrl ?? null,
        download_url: product.downloadUrl ?? null,
        status: product.status,
        ...moneyColumns('price', product.price),
      },
    );
    ctx.products.set(product.externalId, productId);
    for (const owner of product.owners ?? []) {
      await ctx.link(
        'digital_product_ownerships',
        { product_id: productId, user_id: ctx.users.get(owner.user) },
        { site_id: ctx.siteId, acquired_at: time(owner.acquiredAt), expires_at: optionalTime(owner.expiresAt) },
      );
    }
  }
}

/** Coupons, keyed by (site, code). */
export async function importCoupons(ctx: ImportContext): Promise<void> {
  for (const coupon of ctx.document.coupons ?? []) {
    await ctx.link(
      'coupons',
      { site_id: ctx.siteId, code: coupon.code },
      {
        title: coupon.title ?? null,
        discount_kind: coupon.discountKind,
        percent_off: coupon.percentOff ?? null,
        ...moneyColumns('amount_off', coupon.amountOff),
        max_redemptions: coupon.maxRedemptions ?? null,
        redeemed_count: coupon.redeemedCount ?? 0,
        starts_at: optionalTime(coupon.startsAt),
        ends_at: optionalTime(coupon.endsAt),
        active: coupon.active ?? true,
      },
    );
  }
}

/** Membership plans, keyed by externalId. */
export async function importMembershipPlans(ctx: ImportContext): Promise<void> {
  for (const plan of ctx.document.membershipPlans ?? []) {
    const planId = await ctx.save(
      'membership_plans',
      { site_id: ctx.siteId, external_id: plan.externalId },
      {
        name: plan.name,
        description: plan.description ?? null,
        ...moneyColumns('price', plan.price),
        billing_interval: plan.billingInterval,
        active: plan.active ?? true,
      },
    );
    ctx.plans.set(plan.externalId, planId);
  }
}

/** Subscriptions have no external id column: they are keyed by (plan, user, started_at). */
export async function importSubscriptions(ctx: ImportContext): Promise<void> {
  for (const subscription of ctx.document.subscriptions ?? []) {
    await ctx.link(
      'subscriptions',
      { site_id: ctx.siteId, plan_id: ctx.plans.get(subscription.plan), user_id: ctx.users.get(subscription.user), started_at: time(subscription.startedAt) },
      {
        state: subscription.state,
        current_period_start: time(subscription.currentPeriodStart),
        current_period_end: time(subscription.currentPeriodEnd),
        canceled_at: optionalTime(subscription.canceledAt),
      },
    );
  }
}

/** Payments (keyed by trade number) with their line items, adjustments (keyed by position) and invoice. */
export async function importPayments(ctx: ImportContext): Promise<void> {
  const couponIds = new Map<string, number | null>();
  for (const payment of ctx.document.payments ?? []) {
    const paymentId = await ctx.save('payments', { site_id: ctx.siteId, trade_no: payment.tradeNo }, paymentColumns(ctx, payment));
    for (const [position, line] of (payment.lineItems ?? []).entries()) {
      await ctx.link(
        'payment_line_items',
        { payment_id: paymentId, position },
        { item_kind: line.kind, item_id: lineItemTarget(ctx, line), title: line.title, quantity: line.quantity ?? 1, unit_amount: line.unitAmount, amount: line.amount },
      );
    }
    for (const [position, adjustment] of (payment.adjustments ?? []).entries()) {
      const code = adjustment.code ?? null;
      await ctx.link(
        'payment_adjustments',
        { payment_id: paymentId, position },
        { kind: adjustment.kind, code, title: adjustment.title, amount: adjustment.amount, coupon_id: code === null ? null : await couponId(ctx, couponIds, code) },
      );
    }
    const invoice = payment.invoice;
    if (invoice) {
      await ctx.link(
        'payment_invoices',
        { payment_id: paymentId },
        {
          invoice_no: invoice.invoiceNo ?? null,
          kind: invoice.kind,
          title: invoice.title ?? null,
          tax_id: invoice.taxId ?? null,
          carrier: invoice.carrier ?? null,
          status: invoice.status,
          issued_at: optionalTime(invoice.issuedAt),
        },
      );
    }
  }
}

function paymentColumns(ctx: ImportContext, payment: PaymentInput) {
  const refund = payment.refund ?? null;
  const installment = payment.installment ?? null;
  return {
    user_id: ctx.users.get(payment.user),
    amount: payment.amount,
    currency: payment.currency,
    payment_type: payment.paymentType,
    payment_state: payment.paymentState,
    paid_at: optionalTime(payment.paidAt),
    created_at: time(payment.createdAt),
    expired_at: optionalTime(payment.expiredAt),
    bank_code: payment.bankCode ?? null,
    bank_name: payment.bankName ?? null,
    code_no: payment.codeNo ?? null,
    installment_count: installment?.count ?? null,
    installment_amount: installment?.amount ?? null,
    installment_interval: installment?.interval ?? null,
    refunding_state: refund?.state ?? 'none',
    refunded_amount: refund?.amount ?? 0,
    refund_requested_at: optionalTime(refund?.requestedAt),
    refunded_at: optionalTime(refund?.refundedAt),
  };
}

function lineItemTarget(ctx: ImportContext, line: LineItemInput): number | null {
  const targets: Record<LineItemInput['kind'], IdMap | null> = {
    course: ctx.courses,
    digital_product: ctx.products,
    consulting: ctx.services,
    event: ctx.events,
    membership_plan: ctx.plans,
    other: null,
  };
  return targets[line.kind]?.optional(line.item) ?? null;
}

/** An adjustment's code links to the site's coupon with that code, whether this document or an earlier one made it. */
async function couponId(ctx: ImportContext, cache: Map<string, number | null>, code: string): Promise<number | null> {
  if (!cache.has(code)) {
    const row: { id: number } | undefined = await ctx.trx('coupons').where({ site_id: ctx.siteId, code }).first('id');
    cache.set(code, row ? Number(row.id) : null);
  }
  return cache.get(code) ?? null;
}
