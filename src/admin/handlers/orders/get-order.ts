import { requireOrder } from '../../../commerce/orders.js';
import type { AdminHandler } from '../../api/types.js';
import { orderRepresentation } from './representation.js';

/** GET /orders/{orderId} (orders:read): one payment attempt with its lines, adjustments, invoice and refund state. */
export const getOrder: AdminHandler<'getOrder'> = async ({ db, site, path }) => {
  const order = await requireOrder(db, site.id, path.orderId);
  return { status: 200, body: orderRepresentation(order) };
};
