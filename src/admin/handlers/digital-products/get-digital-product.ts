import { requireDigitalProduct } from '../../../commerce/digital-products.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { digitalProductRepresentation } from './representation.js';

/** GET /digital-products/{productId} (digital_products:read). */
export const getDigitalProduct: AdminHandler<'getDigitalProduct'> = async ({ db, site, path }) => {
  const product = await requireDigitalProduct(db, site.id, path.productId);
  return { status: 200, body: digitalProductRepresentation(product), headers: { ETag: etagOf(product.version) } };
};
