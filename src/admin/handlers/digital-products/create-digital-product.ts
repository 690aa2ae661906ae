import { createDigitalProduct as createSiteProduct } from '../../../commerce/digital-products.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { digitalProductRepresentation, digitalProductUrl } from './representation.js';

/** POST /digital-products (digital_products:write): a new product, `draft` by default; slug unique per site. */
export const createDigitalProduct: AdminHandler<'createDigitalProduct'> = async ({ db, site, baseUrl, body }) => {
  const product = await createSiteProduct(db, site.id, {
    slug: body.slug,
    title: body.title,
    description: body.description ?? null,
    kind: body.kind,
    status: body.status ?? 'draft',
    price: body.price ?? null,
    downloadUrl: body.downloadUrl ?? null,
    coverImageUrl: body.coverImageUrl ?? null,
  });
  return { status: 201, body: digitalProductRepresentation(product), headers: { ETag: etagOf(product.version), Location: digitalProductUrl(baseUrl, product.id) } };
};
