import { deleteDigitalProduct as deleteSiteProduct } from '../../../commerce/digital-products.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /digital-products/{productId} (digital_products:write): refused while owned or in orders (409). */
export const deleteDigitalProduct: AdminHandler<'deleteDigitalProduct'> = async ({ db, site, path }) => {
  await deleteSiteProduct(db, site.id, path.productId);
  return { status: 204 };
};
