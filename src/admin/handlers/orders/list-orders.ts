import { listOrders as listSiteOrders } from '../../../commerce/orders.js';
import { InvalidRequestProblem } from '../../api/problems.js';
import type { AdminHandler } from '../../api/types.js';
import { orderSummaryRepresentation } from './representation.js';

/** GET /orders (orders:read): one page of the site's payment attempts, filtered and sorted. */
export const listOrders: AdminHandler<'listOrders'> = async ({ db, site, query }) => {
  const { state, refundState, userId, paymentType, createdFrom, createdTo } = query;
  if (createdFrom !== undefined && createdTo !== undefined && new Date(createdTo).getTime() <= new Date(createdFrom).getTime()) {
    throw new InvalidRequestProblem('createdTo must be after createdFrom.', [{ parameter: 'createdTo', message: 'must be after createdFrom' }]);
  }
  const page = await listSiteOrders(db, site.id, { state, refundState, userId, paymentType, createdFrom, createdTo }, query);
  return { status: 200, body: { data: page.orders.map(orderSummaryRepresentation), nextCursor: page.nextCursor } };
};
