import { deleteCoupon as deleteSiteCoupon } from '../../../commerce/coupons.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /coupons/{couponId} (coupons:write): only a coupon no order used (409 `coupon_in_use`). */
export const deleteCoupon: AdminHandler<'deleteCoupon'> = async ({ db, site, path }) => {
  await deleteSiteCoupon(db, site.id, path.couponId);
  return { status: 204 };
};
