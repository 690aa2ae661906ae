import type { components } from '../../../../generated/admin-api.js';
import type { Coupon } from '../../../commerce/coupons.js';

export type CouponRepresentation = components['schemas']['Coupon'];

export function couponRepresentation(coupon: Coupon): CouponRepresentation {
  return {
    id: coupon.id,
    code: coupon.code,
    title: coupon.title,
    discountKind: coupon.discountKind,
    percentOff: coupon.percentOff,
    amountOff: coupon.amountOff,
    maxRedemptions: coupon.maxRedemptions,
    redeemedCount: coupon.redeemedCount,
    orderCount: coupon.orderCount,
    startsAt: coupon.startsAt?.toISOString() ?? null,
    endsAt: coupon.endsAt?.toISOString() ?? null,
    active: coupon.active,
    redeemable: coupon.redeemable,
    createdAt: coupon.createdAt.toISOString(),
    updatedAt: coupon.updatedAt.toISOString(),
  };
}

export function couponUrl(baseUrl: string, couponId: number): string {
  return `${baseUrl}/coupons/${couponId}`;
}

/** An optional RFC 3339 time of a body as a Date (null stays null, absent stays absent). */
export function timeOf(value: string | null | undefined): Date | null | undefined {
  if (value === undefined) return undefined;
  return value === null ? null : new Date(value);
}
