import { updateCoupon as updateSiteCoupon, type CouponPatch } from '../../../commerce/coupons.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { couponRepresentation, timeOf } from './representation.js';

/** PATCH /coupons/{couponId} (coupons:write): merge patch at the version If-Match names. */
export const updateCoupon: AdminHandler<'updateCoupon'> = async ({ db, site, path, headers, body }) => {
  const patch: CouponPatch = {
    ...(body.code === undefined ? {} : { code: body.code }),
    ...(body.title === undefined ? {} : { title: body.title }),
    ...(body.discountKind === undefined ? {} : { discountKind: body.discountKind }),
    ...(body.percentOff === undefined ? {} : { percentOff: body.percentOff }),
    ...(body.amountOff === undefined ? {} : { amountOff: body.amountOff }),
    ...(body.maxRedemptions === undefined ? {} : { maxRedemptions: body.maxRedemptions }),
    ...(body.startsAt === undefined ? {} : { startsAt: timeOf(body.startsAt) ?? null }),
    ...(body.endsAt === undefined ? {} : { endsAt: timeOf(body.endsAt) ?? null }),
    ...(body.active === undefined ? {} : { active: body.active }),
  };
  const coupon = await updateSiteCoupon(db, site.id, path.couponId, patch, versionFromIfMatch(headers['If-Match']));
  return { status: 200, body: couponRepresentation(coupon), headers: { ETag: etagOf(coupon.version) } };
};
