import { revokeOwnership } from '../../../commerce/digital-products.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /digital-products/{productId}/owners/{userId} (digital_products:write): removes the ownership at once. */
export const revokeDigitalProduct: AdminHandler<'revokeDigitalProduct'> = async ({ db, site, path, log }) => {
  await revokeOwnership(db, site.id, path.productId, path.userId);
  log.info({ event: 'digital_product_revoked', productId: path.productId, userId: path.userId }, 'digital product ownership revoked');
  return { status: 204 };
};
