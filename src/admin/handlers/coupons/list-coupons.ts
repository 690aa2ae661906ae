import { listCoupons as listSiteCoupons } from '../../../commerce/coupons.js';
import type { AdminHandler } from '../../api/types.js';
import { couponRepresentation } from './representation.js';

/** GET /coupons (coupons:read): one page of the site's coupons. */
export const listCoupons: AdminHandler<'listCoupons'> = async ({ db, site, query }) => {
  const page = await listSiteCoupons(db, site.id, { active: query.active, q: query.q }, query);
  return { status: 200, body: { data: page.coupons.map(couponRepresentation), nextCursor: page.nextCursor } };
};
