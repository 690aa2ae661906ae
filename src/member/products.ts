import { requireDate, toDate } from '../db/connection.js';
import type { MemberContext } from './context.js';
import { DEFAULT_LIMITS, fetchPage, pageWindow, type Page, type PageArgs, type SortKey } from './pagination.js';

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

interface OwnedProductRow {
  /** The ownership id (the list's tie-breaker). */
  id: number;
  acquired_at: unknown;
  expires_at: unknown;
  product_id: number;
  slug: string;
  title: string;
  description: string | null;
  kind: string;
  cover_image_url: string | null;
}

/** Schema: "Ordered by grant time, newest first", ties broken by the ownership id. */
const DIGITAL_PRODUCTS_ORDER: SortKey = [
  { column: 'digital_product_ownerships.acquired_at', descending: true, time: true },
  { column: 'digital_product_ownerships.id', descending: true },
];

/** The public page of a product on its site: `{origin}/digital-products/{slug}`. */
export function digitalProductUrl(origin: string, slug: string): string {
  return `${origin}/digital-products/${encodeURIComponent(slug)}`;
}

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
      .select(
        'digital_product_ownerships.id as id',
        'digital_product_ownerships.acquired_at as acquired_at',
        'digital_product_ownerships.expires_at as expires_at',
        'digital_products.id as product_id',
        'digital_products.slug as slug',
        'digital_products.title as title',
        'digital_products.description as description',
        'digital_products.kind as kind',
        'digital_products.cover_image_url as cover_image_url',
      );
  const page = await fetchPage<OwnedProductRow & Record<string, unknown>>(base, DIGITAL_PRODUCTS_ORDER, window);
  return {
    ...page,
    nodes: page.nodes.map((row) => ({
      id: Number(row.product_id),
      ownershipId: Number(row.id),
      slug: row.slug,
      title: row.title,
      description: row.description,
      kind: row.kind,
      coverImageUrl: row.cover_image_url || null,
      url: digitalProductUrl(ctx.site.origin, row.slug),
      acquiredAt: requireDate(row.acquired_at),
      expiresAt: toDate(row.expires_at),
    })),
  };
}
