import { listOwners } from '../../../commerce/digital-products.js';
import type { AdminHandler } from '../../api/types.js';
import { ownerRepresentation } from './representation.js';

/** GET /digital-products/{productId}/owners (digital_products:read): one page of the product's owners. */
export const listDigitalProductOwners: AdminHandler<'listDigitalProductOwners'> = async ({ db, site, path, query }) => {
  const page = await listOwners(db, site.id, path.productId, query);
  return { status: 200, body: { data: page.owners.map(ownerRepresentation), nextCursor: page.nextCursor } };
};
