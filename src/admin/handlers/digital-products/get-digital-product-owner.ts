import { requireOwnership } from '../../../commerce/digital-products.js';
import type { AdminHandler } from '../../api/types.js';
import { ownerRepresentation } from './representation.js';

/** GET /digital-products/{productId}/owners/{userId} (digital_products:read): 404 unless the member owns it. */
export const getDigitalProductOwner: AdminHandler<'getDigitalProductOwner'> = async ({ db, site, path }) => {
  const ownership = await requireOwnership(db, site.id, path.productId, path.userId);
  return { status: 200, body: ownerRepresentation(ownership) };
};
