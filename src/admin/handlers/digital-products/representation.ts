import type { components } from '../../../../generated/admin-api.js';
import type { DigitalProduct, ProductOwnership } from '../../../commerce/digital-products.js';

export type DigitalProductRepresentation = components['schemas']['DigitalProduct'];
export type DigitalProductOwnerRepresentation = components['schemas']['DigitalProductOwner'];

export function digitalProductRepresentation(product: DigitalProduct): DigitalProductRepresentation {
  return {
    id: product.id,
    slug: product.slug,
    title: product.title,
    description: product.description,
    kind: product.kind,
    status: product.status,
    price: product.price,
    downloadUrl: product.downloadUrl,
    coverImageUrl: product.coverImageUrl,
    ownerCount: product.ownerCount,
    createdAt: product.createdAt.toISOString(),
    updatedAt: product.updatedAt.toISOString(),
  };
}

export function ownerRepresentation(ownership: ProductOwnership): DigitalProductOwnerRepresentation {
  return {
    productId: ownership.productId,
    member: ownership.member,
    acquiredAt: ownership.acquiredAt.toISOString(),
    expiresAt: ownership.expiresAt?.toISOString() ?? null,
    active: ownership.active,
    createdAt: ownership.createdAt.toISOString(),
  };
}

export function digitalProductUrl(baseUrl: string, productId: number): string {
  return `${baseUrl}/digital-products/${productId}`;
}
