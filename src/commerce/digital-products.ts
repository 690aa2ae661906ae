import { joinSiteProfile, profileColumn } from '../accounts/site-profiles.js';
import { isSiteMember } from '../accounts/roles.js';
import type { Knex } from 'knex';
import type { Database } from '../db/connection.js';
import {
  digitalProductColumns,
  digitalProductFromRow,
  digitalProductsOfSite,
  ownershipColumns,
  ownershipFromRow,
  type DigitalProductData,
  type DigitalProductKind,
  type DigitalProductOwnershipRow,
  type DigitalProductRow,
  type DigitalProductStatus,
} from '../data/digital-products.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError, SlugTakenError, ValidationError, type FieldProblem } from '../shared/errors.js';
import { numberOf } from './common.js';
import { type Queryable, isUniqueViolation, whereContains } from '../db/queries.js';
import { withTransaction } from '../db/transaction.js';

/**
 * The site's digital products and who owns them (admin API `/digital-products`; docs/admin-commerce.md). Slugs are
 * unique per site. A product stays while members own it or orders contain it: it is archived instead, so libraries and
 * order records keep pointing at it. Operators grant and revoke ownerships directly (gifts, support cases).
 */

export type { DigitalProductKind, DigitalProductStatus } from '../data/digital-products.js';

/** A product as operators manage it, with how many members own it. */
export interface DigitalProduct extends DigitalProductData {
  ownerCount: number;
}

export type DigitalProductFields = Omit<DigitalProductData, 'id' | 'version' | 'createdAt' | 'updatedAt'>;

export type DigitalProductPatch = Partial<DigitalProductFields>;

async function ownerCounts(db: Queryable, productIds: readonly number[]): Promise<Map<number, number>> {
  if (productIds.length === 0) return new Map();
  const rows = (await db('digital_product_ownerships').whereIn('product_id', [...productIds]).groupBy('product_id').select('product_id').count({ owners: '*' })) as Array<{
    product_id: number | string;
    owners: number | string;
  }>;
  return new Map(rows.map((row) => [Number(row.product_id), numberOf(row.owners)]));
}

async function withOwnerCounts(db: Queryable, rows: readonly DigitalProductRow[]): Promise<DigitalProduct[]> {
  const products = rows.map(digitalProductFromRow);
  const counts = await ownerCounts(
    db,
    products.map((product) => product.id),
  );
  return products.map((product) => ({ ...product, ownerCount: counts.get(product.id) ?? 0 }));
}

function productNotFound(productId: number): NotFoundError {
  return new NotFoundError(`This site has no digital product ${productId}.`);
}

export async function requireDigitalProduct(db: Queryable, siteId: number, productId: number): Promise<DigitalProduct> {
  const row = (await digitalProductsOfSite(db, siteId).where('digital_products.id', productId).first(digitalProductColumns())) as DigitalProductRow | undefined;
  if (!row) throw productNotFound(productId);
  const [product] = await withOwnerCounts(db, [row]);
  if (!product) throw productNotFound(productId);
  return product;
}

// --- Listing ----------------------------------------------------------------------------------------------------------

export interface DigitalProductFilters {
  status?: DigitalProductStatus | undefined;
  kind?: DigitalProductKind | undefined;
  q?: string | undefined;
}

const PRODUCT_SORTS: SortColumns<'createdAt' | 'updatedAt' | 'title' | 'slug'> = {
  createdAt: { column: 'created_at', type: 'time' },
  updatedAt: { column: 'updated_at', type: 'time' },
  title: { column: 'title', type: 'string' },
  slug: { column: 'slug', type: 'string' },
};

export async function listDigitalProducts(db: Database, siteId: number, filters: DigitalProductFilters, query: ListQuery): Promise<{ products: DigitalProduct[]; nextCursor: string | null }> {
  const builder = digitalProductsOfSite(db, siteId).select(digitalProductColumns());
  if (filters.status !== undefined) builder.andWhere('status', filters.status);
  if (filters.kind !== undefined) builder.andWhere('kind', filters.kind);
  if (filters.q !== undefined) whereContains(builder, ['title', 'slug'], filters.q);
  const page = await listPage<DigitalProductRow, keyof typeof PRODUCT_SORTS>(builder, query, { sorts: PRODUCT_SORTS, defaultSort: '-createdAt', filters: { ...filters } });
  return { products: await withOwnerCounts(db, page.rows), nextCursor: page.nextCursor };
}

// --- Changes ----------------------------------------------------------------------------------------------------------

function checkFields(fields: DigitalProductPatch): void {
  const problems: FieldProblem[] = [];
  if (fields.price && fields.price.amount < 0) problems.push({ pointer: '/price/amount', message: 'must not be negative' });
  if (problems.length > 0) throw new ValidationError('The digital product breaks a rule: see errors.', problems);
}

async function assertSlugFree(db: Queryable, siteId: number, slug: string, exceptId: number | null): Promise<void> {
  const builder = db('digital_products').where({ site_id: siteId, slug });
  if (exceptId !== null) builder.andWhereNot('id', exceptId);
  if (await builder.first('id')) throw new SlugTakenError('digital product', slug);
}

function columnsOf(fields: DigitalProductPatch): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (fields.slug !== undefined) columns.slug = fields.slug;
  if (fields.title !== undefined) columns.title = fields.title;
  if (fields.description !== undefined) columns.description = fields.description;
  if (fields.kind !== undefined) columns.kind = fields.kind;
  if (fields.status !== undefined) columns.status = fields.status;
  if (fields.price !== undefined) {
    columns.price_amount = fields.price?.amount ?? null;
    columns.price_currency = fields.price?.currency ?? null;
  }
  if (fields.downloadUrl !== undefined) columns.download_url = fields.downloadUrl;
  if (fields.coverImageUrl !== undefined) columns.cover_image_url = fields.coverImageUrl;
  return columns;
}

export async function createDigitalProduct(db: Database, siteId: number, fields: DigitalProductFields): Promise<DigitalProduct> {
  checkFields(fields);
  try {
    const id = await withTransaction(db, async (trx) => {
      await assertSlugFree(trx, siteId, fields.slug, null);
      const now = new Date();
      const [inserted] = await trx('digital_products').insert({ site_id: siteId, ...columnsOf(fields), version: 1, created_at: now, updated_at: now });
      return Number(inserted);
    });
    return await requireDigitalProduct(db, siteId, id);
  } catch (error) {
    if (isUniqueViolation(error)) throw new SlugTakenError('digital product', fields.slug);
    throw error;
  }
}

export async function updateDigitalProduct(db: Database, siteId: number, productId: number, patch: DigitalProductPatch, expectedVersion: number): Promise<DigitalProduct> {
  checkFields(patch);
  try {
    await withTransaction(db, async (trx) => {
      const current = await requireDigitalProduct(trx, siteId, productId);
      if (patch.slug !== undefined && patch.slug !== current.slug) await assertSlugFree(trx, siteId, patch.slug, productId);
      await updateVersionedRow(trx, 'digital_products', { site_id: siteId, id: productId }, expectedVersion, columnsOf(patch), {
        what: 'digital product',
        notFound: `This site has no digital product ${productId}.`,
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new SlugTakenError('digital product', patch.slug ?? '');
    throw error;
  }
  return requireDigitalProduct(db, siteId, productId);
}

/** Deletes a product nobody owns and no order contains (409 `product_has_owners` / `product_in_orders` otherwise). */
export async function deleteDigitalProduct(db: Database, siteId: number, productId: number): Promise<void> {
  await withTransaction(db, async (trx: Knex.Transaction) => {
    const product = await requireDigitalProduct(trx, siteId, productId);
    if (product.ownerCount > 0) {
      throw new ConflictError(
        `${product.ownerCount} member(s) own digital product ${product.slug}, so it cannot be deleted. Revoke the ownerships first, or archive the product (PATCH with "status": "archived"): it leaves the catalogue and owners keep it.`,
        'product_has_owners',
      );
    }
    const line = await trx('payment_line_items')
      .join('payments', 'payments.id', 'payment_line_items.payment_id')
      .where('payments.site_id', siteId)
      .andWhere('payment_line_items.item_kind', 'digital_product')
      .andWhere('payment_line_items.item_id', productId)
      .first('payment_line_items.id');
    if (line) {
      throw new ConflictError(
        `Orders contain digital product ${product.slug}, so it cannot be deleted. Archive it instead (PATCH with "status": "archived"): orders keep their record of it.`,
        'product_in_orders',
      );
    }
    await trx('digital_products').where({ site_id: siteId, id: productId }).delete();
  });
}

// --- Owners -----------------------------------------------------------------------------------------------------------

export interface ProductOwnership {
  productId: number;
  member: { id: number; name: string; email: string };
  acquiredAt: Date;
  expiresAt: Date | null;
  /** Not expired at the time it was read. */
  active: boolean;
  createdAt: Date;
}

interface OwnershipRow extends DigitalProductOwnershipRow {
  member_name: string;
  member_email: string;
}

function ownershipsQuery(db: Queryable, siteId: number, productId: number): Knex.QueryBuilder {
  return joinSiteProfile(db('digital_product_ownerships').join('users', 'users.id', 'digital_product_ownerships.user_id'), siteId, 'digital_product_ownerships.user_id')
    .where('digital_product_ownerships.site_id', siteId)
    .andWhere('digital_product_ownerships.product_id', productId)
    .select(...ownershipColumns(), profileColumn(db, 'name', 'member_name'), 'users.email as member_email');
}

function ownershipAt(row: OwnershipRow, now: Date): ProductOwnership {
  const ownership = ownershipFromRow(row);
  return {
    productId: ownership.productId,
    member: { id: ownership.userId, name: row.member_name, email: row.member_email },
    acquiredAt: ownership.acquiredAt,
    expiresAt: ownership.expiresAt,
    active: ownership.expiresAt === null || now.getTime() < ownership.expiresAt.getTime(),
    createdAt: ownership.createdAt,
  };
}

const OWNER_SORTS: SortColumns<'acquiredAt'> = {
  acquiredAt: { column: 'digital_product_ownerships.acquired_at', type: 'time' },
};

/** Ensures the product is this site's (404 otherwise), for the owner operations. */
async function requireProductRow(db: Queryable, siteId: number, productId: number): Promise<void> {
  if (!(await db('digital_products').where({ site_id: siteId, id: productId }).first('id'))) throw productNotFound(productId);
}

export async function listOwners(db: Database, siteId: number, productId: number, query: ListQuery): Promise<{ owners: ProductOwnership[]; nextCursor: string | null }> {
  await requireProductRow(db, siteId, productId);
  const page = await listPage<OwnershipRow, 'acquiredAt'>(ownershipsQuery(db, siteId, productId), query, {
    sorts: OWNER_SORTS,
    defaultSort: '-acquiredAt',
    filters: { productId },
    idColumn: 'digital_product_ownerships.id',
  });
  const now = new Date();
  return { owners: page.rows.map((row) => ownershipAt(row, now)), nextCursor: page.nextCursor };
}

function notOwned(productId: number, userId: number): NotFoundError {
  return new NotFoundError(`Member ${userId} does not own digital product ${productId}.`);
}

export async function requireOwnership(db: Queryable, siteId: number, productId: number, userId: number): Promise<ProductOwnership> {
  await requireProductRow(db, siteId, productId);
  const row = (await ownershipsQuery(db, siteId, productId).andWhere('digital_product_ownerships.user_id', userId).first()) as OwnershipRow | undefined;
  if (!row) throw notOwned(productId, userId);
  return ownershipAt(row, new Date());
}

export interface GrantInput {
  userId: number;
  acquiredAt?: Date | undefined;
  expiresAt?: Date | null | undefined;
}

function alreadyOwned(productId: number, userId: number): ConflictError {
  return new ConflictError(`Member ${userId} already owns digital product ${productId}. To grant it again with other dates, revoke the ownership first.`, 'already_owned');
}

/** Makes a member of the site an owner (400 for a non-member, 409 `already_owned`). */
export async function grantOwnership(db: Database, siteId: number, productId: number, input: GrantInput): Promise<ProductOwnership> {
  const acquiredAt = input.acquiredAt ?? new Date();
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt !== null && expiresAt.getTime() <= acquiredAt.getTime()) {
    throw new ValidationError('The ownership breaks a rule: see errors.', [{ pointer: '/expiresAt', message: 'must be after acquiredAt' }]);
  }
  try {
    await withTransaction(db, async (trx) => {
      await requireProductRow(trx, siteId, productId);
      if (!(await isSiteMember(trx, siteId, input.userId))) throw new ValidationError('The user is not a member of this site.', [{ pointer: '/userId', message: 'is not a member of this site' }]);
      if (await trx('digital_product_ownerships').where({ product_id: productId, user_id: input.userId }).first('id')) throw alreadyOwned(productId, input.userId);
      await trx('digital_product_ownerships').insert({ site_id: siteId, product_id: productId, user_id: input.userId, acquired_at: acquiredAt, expires_at: expiresAt, created_at: new Date() });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyOwned(productId, input.userId);
    throw error;
  }
  return requireOwnership(db, siteId, productId, input.userId);
}

export async function revokeOwnership(db: Database, siteId: number, productId: number, userId: number): Promise<void> {
  await requireProductRow(db, siteId, productId);
  const deleted = await db('digital_product_ownerships').where({ site_id: siteId, product_id: productId, user_id: userId }).delete();
  if (deleted === 0) throw notOwned(productId, userId);
}
