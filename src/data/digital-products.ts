import type { Knex } from 'knex';
import { requireDate, toDate } from '../db/connection.js';
import type { Queryable } from '../db/queries.js';
import { moneyFromColumns, type Money } from '../shared/money.js';
import { selectColumns } from './columns.js';

/**
 * The `digital_products` table and its ownerships (`digital_product_ownerships`): their rows, columns and mappers, and
 * the site's products as a query. The member's downloads and the operators' products and owners read them.
 */

export type DigitalProductKind = 'ebook' | 'audio' | 'video' | 'file' | 'template';
export type DigitalProductStatus = 'draft' | 'published' | 'archived';
const KINDS: readonly DigitalProductKind[] = ['ebook', 'audio', 'video', 'file', 'template'];
const STATUSES: readonly DigitalProductStatus[] = ['draft', 'published', 'archived'];

/** A row as the drivers answer it (MySQL may answer numbers as strings; times come as Date, string or number). */
export interface DigitalProductRow {
  id: number | string;
  slug: string;
  title: string;
  description: string | null;
  kind: string;
  status: string;
  price_amount: number | string | null;
  price_currency: string | null;
  download_url: string | null;
  cover_image_url: string | null;
  version: number | string;
  created_at: unknown;
  updated_at: unknown;
}

export const DIGITAL_PRODUCT_COLUMNS = [
  'id',
  'slug',
  'title',
  'description',
  'kind',
  'status',
  'price_amount',
  'price_currency',
  'download_url',
  'cover_image_url',
  'version',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof DigitalProductRow>;

export interface DigitalProductData {
  id: number;
  slug: string;
  title: string;
  description: string | null;
  kind: DigitalProductKind;
  status: DigitalProductStatus;
  price: Money | null;
  /** For owners only. */
  downloadUrl: string | null;
  /** As stored (an operator may have set an empty string). */
  coverImageUrl: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Every column of `digital_products`, for a select. */
export function digitalProductColumns(table = 'digital_products'): string[] {
  return selectColumns(table, DIGITAL_PRODUCT_COLUMNS);
}

export function digitalProductFromRow(row: DigitalProductRow): DigitalProductData {
  return {
    id: Number(row.id),
    slug: row.slug,
    title: row.title,
    description: row.description,
    kind: KINDS.find((kind) => kind === row.kind) ?? 'file',
    status: STATUSES.find((status) => status === row.status) ?? 'draft',
    price: moneyFromColumns(row.price_amount, row.price_currency),
    downloadUrl: row.download_url,
    coverImageUrl: row.cover_image_url,
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

/** The digital products of one site: the base of every products query. */
export function digitalProductsOfSite(db: Queryable, siteId: number): Knex.QueryBuilder {
  return db('digital_products').where('digital_products.site_id', siteId);
}

/** The public page of a product on its site: `{origin}/digital-products/{slug}`. */
export function digitalProductUrl(origin: string, slug: string): string {
  return `${origin}/digital-products/${encodeURIComponent(slug)}`;
}

/** An ownership row: a member's access to a product, with no end or until `expires_at`. */
export interface DigitalProductOwnershipRow {
  id: number | string;
  product_id: number | string;
  user_id: number | string;
  acquired_at: unknown;
  expires_at: unknown;
  created_at: unknown;
}

export const DIGITAL_PRODUCT_OWNERSHIP_COLUMNS = ['id', 'product_id', 'user_id', 'acquired_at', 'expires_at', 'created_at'] as const satisfies ReadonlyArray<keyof DigitalProductOwnershipRow>;

export interface DigitalProductOwnershipData {
  id: number;
  productId: number;
  userId: number;
  acquiredAt: Date;
  /** Null: no end. */
  expiresAt: Date | null;
  createdAt: Date;
}

/** Every column of `digital_product_ownerships`, for a select. */
export function ownershipColumns(table = 'digital_product_ownerships'): string[] {
  return selectColumns(table, DIGITAL_PRODUCT_OWNERSHIP_COLUMNS);
}

export function ownershipFromRow(row: DigitalProductOwnershipRow): DigitalProductOwnershipData {
  return {
    id: Number(row.id),
    productId: Number(row.product_id),
    userId: Number(row.user_id),
    acquiredAt: requireDate(row.acquired_at),
    expiresAt: toDate(row.expires_at),
    createdAt: requireDate(row.created_at),
  };
}
