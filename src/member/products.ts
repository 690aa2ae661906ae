import { prefixedColumns, unprefixed } from '../data/columns.js';
import {
  DIGITAL_PRODUCT_COLUMNS,
  digitalProductFromRow,
  digitalProductUrl,
  ownershipColumns,
  ownershipFromRow,
  type DigitalProductOwnershipRow,
  type DigitalProductRow,
} from '../data/digital-products.js';
import type { MemberContext } from './context.js';
import { DEFAULT_LIMITS, fetchPage, pageWindow, type Page, type PageArgs, type SortKey, withNodes } from './pagination.js';

/**
 * A digital product the viewer may download here (spec: viewer `digitalProducts`): an entitlement, not an order, so
 * it carries no order number, coupon, refund, invoice or price.
 */
export interface DigitalProductRecord {
  /** The product id. */
  id: number;
  ownershipId: number;
  slug: string;
  title: string;
  description: string | null;
  /** ebook | audio | video | file | template */
  kind: string;
  coverImageUrl: string | null;
  /** The product's page on this site, where the signed-in member downloads its files. */
  url: string;
  /** When the viewer was granted the product (the list's order). */
  acquiredAt: Date;
  /** When the viewer's access ends; null = no end. Ended ownerships are not listed. */
  expiresAt: Date | null;
}

/** An ownership row with its product's columns beside it, prefixed (both tables have an id and timestamps). */
type OwnedProductRow = DigitalProductOwnershipRow & Record<string, unknown>;

const PRODUCT_PREFIX = 'products_';

/** Schema: "Ordered by grant time, newest first", ties broken by the ownership id. */
const DIGITAL_PRODUCTS_ORDER: SortKey = [
  { column: 'digital_product_ownerships.acquired_at', descending: true, time: true },
  { column: 'digital_product_ownerships.id', descending: true },
];

export { digitalProductUrl } from '../data/digital-products.js';

/**
 * The digital products the viewer owns at this site and may still download (ownerships without an end, or ending
 * after now), newest grant first. Two queries (page + count).
 */
export async function listDigitalProducts(ctx: MemberContext, args: PageArgs): Promise<Page<DigitalProductRecord>> {
  const window = pageWindow(args, DEFAULT_LIMITS, DIGITAL_PRODUCTS_ORDER);
  const base = () =>
    ctx
      .db('digital_product_ownerships')
      .join('digital_products', 'digital_products.id', 'digital_product_ownerships.product_id')
      .where('digital_product_ownerships.user_id', ctx.userId)
      .where('digital_product_ownerships.site_id', ctx.site.id)
      .where('digital_products.site_id', ctx.site.id)
      .where((current) => current.whereNull('digital_product_ownerships.expires_at').orWhere('digital_product_ownerships.expires_at', '>', ctx.now))
      .select(...ownershipColumns(), ...prefixedColumns('digital_products', DIGITAL_PRODUCT_COLUMNS, PRODUCT_PREFIX));
  const page = await fetchPage<OwnedProductRow>(base, DIGITAL_PRODUCTS_ORDER, window);
  return withNodes(
    page,
    page.nodes.map((row) => {
      const ownership = ownershipFromRow(row);
      const product = digitalProductFromRow(unprefixed<DigitalProductRow>(row, DIGITAL_PRODUCT_COLUMNS, PRODUCT_PREFIX));
      return {
        id: product.id,
        ownershipId: ownership.id,
        slug: product.slug,
        title: product.title,
        description: product.description,
        kind: product.kind,
        coverImageUrl: product.coverImageUrl || null,
        url: digitalProductUrl(ctx.site.origin, product.slug),
        acquiredAt: ownership.acquiredAt,
        expiresAt: ownership.expiresAt,
      };
    }),
  );
}
