import { createCoupon as createSiteCoupon } from '../../../commerce/coupons.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { couponRepresentation, couponUrl, timeOf } from './representation.js';

/** POST /coupons (coupons:write): a new coupon; its code is unique per site ignoring case (409 `code_taken`). */
export const createCoupon: AdminHandler<'createCoupon'> = async ({ db, site, baseUrl, body }) => {
  const coupon = await createSiteCoupon(db, site.id, {
    code: body.code,
    title: body.title ?? null,
    discountKind: body.discountKind,
    percentOff: body.percentOff ?? null,
    amountOff: body.amountOff ?? null,
    maxRedemptions: body.maxRedemptions ?? null,
    startsAt: timeOf(body.startsAt) ?? null,
    endsAt: timeOf(body.endsAt) ?? null,
    active: body.active ?? true,
  });
  return { status: 201, body: couponRepresentation(coupon), headers: { ETag: etagOf(coupon.version), Location: couponUrl(baseUrl, coupon.id) } };
};
