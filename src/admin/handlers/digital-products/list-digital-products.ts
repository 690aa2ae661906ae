import { listDigitalProducts as listSiteProducts } from '../../../commerce/digital-products.js';
import type { AdminHandler } from '../../api/types.js';
import { digitalProductRepresentation } from './representation.js';

/** GET /digital-products (digital_products:read): one page of the site's products with their owner counts. */
export const listDigitalProducts: AdminHandler<'listDigitalProducts'> = async ({ db, site, query }) => {
  const page = await listSiteProducts(db, site.id, { status: query.status, kind: query.kind, q: query.q }, query);
  return { status: 200, body: { data: page.products.map(digitalProductRepresentation), nextCursor: page.nextCursor } };
};
