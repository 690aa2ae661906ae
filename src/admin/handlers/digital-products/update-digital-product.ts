import { updateDigitalProduct as updateSiteProduct, type DigitalProductPatch } from '../../../commerce/digital-products.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { digitalProductRepresentation } from './representation.js';

/** PATCH /digital-products/{productId} (digital_products:write): merge patch at the version If-Match names. */
export const updateDigitalProduct: AdminHandler<'updateDigitalProduct'> = async ({ db, site, path, headers, body }) => {
  const patch: DigitalProductPatch = {
    ...(body.slug === undefined ? {} : { slug: body.slug }),
    ...(body.title === undefined ? {} : { title: body.title }),
    ...(body.description === undefined ? {} : { description: body.description }),
    ...(body.kind === undefined ? {} : { kind: body.kind }),
    ...(body.status === undefined ? {} : { status: body.status }),
    ...(body.price === undefined ? {} : { price: body.price }),
    ...(body.downloadUrl === undefined ? {} : { downloadUrl: body.downloadUrl }),
    ...(body.coverImageUrl === undefined ? {} : { coverImageUrl: body.coverImageUrl }),
  };
  const product = await updateSiteProduct(db, site.id, path.productId, patch, versionFromIfMatch(headers['If-Match']));
  return { status: 200, body: digitalProductRepresentation(product), headers: { ETag: etagOf(product.version) } };
};
