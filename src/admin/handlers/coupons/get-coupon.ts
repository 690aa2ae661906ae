import { requireCoupon } from '../../../commerce/coupons.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { couponRepresentation } from './representation.js';

/** GET /coupons/{couponId} (coupons:read). */
export const getCoupon: AdminHandler<'getCoupon'> = async ({ db, site, path }) => {
  const coupon = await requireCoupon(db, site.id, path.couponId);
  return { status: 200, body: couponRepresentation(coupon), headers: { ETag: etagOf(coupon.version) } };
};
