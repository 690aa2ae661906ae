import { grantOwnership } from '../../../commerce/digital-products.js';
import type { AdminHandler } from '../../api/types.js';
import { digitalProductUrl, ownerRepresentation } from './representation.js';

/** POST /digital-products/{productId}/owners (digital_products:write): grants the product to a member of the site. */
export const grantDigitalProduct: AdminHandler<'grantDigitalProduct'> = async ({ db, site, baseUrl, path, body }) => {
  const ownership = await grantOwnership(db, site.id, path.productId, {
    userId: body.userId,
    acquiredAt: body.acquiredAt === undefined ? undefined : new Date(body.acquiredAt),
    expiresAt: body.expiresAt === undefined || body.expiresAt === null ? null : new Date(body.expiresAt),
  });
  return {
    status: 201,
    body: ownerRepresentation(ownership),
    headers: { Location: `${digitalProductUrl(baseUrl, path.productId)}/owners/${ownership.member.id}` },
  };
};
