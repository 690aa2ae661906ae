import { requireDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow } from '../db/versioned-rows.js';
import { NotFoundError, SlugTakenError, ValidationError } from '../shared/errors.js';
import { contentStatusOf, type ContentStatus } from './shared.js';
import { type Queryable, isUniqueViolation, whereContains } from '../db/queries.js';

/** Static pages as operators manage them (the admin API's /pages, docs/admin-content.md): unique slugs per site. */

export interface Page {
  id: number;
  slug: string;
  title: string;
  body: string;
  status: ContentStatus;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface PageRow {
  id: number;
  slug: string;
  title: string;
  body: string;
  status: string;
  version: number;
  created_at: unknown;
  updated_at: unknown;
}

const PAGE_COLUMNS = ['id', 'slug', 'title', 'body', 'status', 'version', 'created_at', 'updated_at'];

function pageFromRow(row: PageRow): Page {
  return {
    id: Number(row.id),
    slug: row.slug,
    title: row.title,
    body: row.body,
    status: contentStatusOf(row.status),
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

export async function requirePage(db: Queryable, siteId: number, pageId: number): Promise<Page> {
  const row = (await db('pages').where({ id: pageId, site_id: siteId }).first(PAGE_COLUMNS)) as PageRow | undefined;
  if (!row) throw new NotFoundError(`This site has no page ${pageId}.`);
  return pageFromRow(row);
}

export interface PageFilters {
  status?: ContentStatus | undefined;
  q?: string | undefined;
}

const PAGE_SORTS: SortColumns<'createdAt' | 'updatedAt' | 'title'> = {
  createdAt: { column: 'created_at', type: 'time' },
  updatedAt: { column: 'updated_at', type: 'time' },
  title: { column: 'title', type: 'string' },
};

export async function listPages(db: Database, siteId: number, filters: PageFilters, query: ListQuery): Promise<{ pages: Page[]; nextCursor: string | null }> {
  const builder = db('pages').where({ site_id: siteId }).select(PAGE_COLUMNS);
  if (filters.status !== undefined) builder.andWhere('status', filters.status);
  if (filters.q !== undefined) whereContains(builder, ['title', 'body'], filters.q);
  const page = await listPage<PageRow, keyof typeof PAGE_SORTS>(builder, query, { sorts: PAGE_SORTS, defaultSort: '-createdAt', filters: { ...filters } });
  return { pages: page.rows.map(pageFromRow), nextCursor: page.nextCursor };
}

async function requireSlugFree(db: Queryable, siteId: number, slug: string, exceptPageId?: number): Promise<void> {
  const other = (await db('pages').where({ site_id: siteId, slug }).first('id')) as { id: number } | undefined;
  if (other && Number(other.id) !== exceptPageId) throw new SlugTakenError('page', slug);
}

function blankTitle(): ValidationError {
  return new ValidationError('The page is not valid.', [{ pointer: '/title', message: 'must not be blank' }]);
}

export interface NewPage {
  slug: string;
  title: string;
  body: string;
  status: ContentStatus;
}

export async function createPage(db: Database, siteId: number, input: NewPage): Promise<Page> {
  if (input.title.trim() === '') throw blankTitle();
  await requireSlugFree(db, siteId, input.slug);
  const now = new Date();
  let id: number;
  try {
    const [inserted] = await db('pages').insert({ site_id: siteId, slug: input.slug, title: input.title.trim(), body: input.body, status: input.status, version: 1, created_at: now, updated_at: now });
    id = Number(inserted);
  } catch (error) {
    if (isUniqueViolation(error)) throw new SlugTakenError('page', input.slug);
    throw error;
  }
  return requirePage(db, siteId, id);
}

export interface PageChanges {
  slug?: string;
  title?: string;
  body?: string;
  status?: ContentStatus;
}

export async function updatePage(db: Database, siteId: number, pageId: number, changes: PageChanges, expectedVersion: number): Promise<Page> {
  const current = await requirePage(db, siteId, pageId);
  const columns: Record<string, unknown> = {};
  if (changes.title !== undefined) {
    if (changes.title.trim() === '') throw blankTitle();
    if (changes.title.trim() !== current.title) columns.title = changes.title.trim();
  }
  if (changes.body !== undefined && changes.body !== current.body) columns.body = changes.body;
  if (changes.status !== undefined && changes.status !== current.status) columns.status = changes.status;
  if (changes.slug !== undefined && changes.slug !== current.slug) {
    await requireSlugFree(db, siteId, changes.slug, pageId);
    columns.slug = changes.slug;
  }
  try {
    await updateVersionedRow(db, 'pages', { id: pageId, site_id: siteId }, expectedVersion, columns, { what: 'page', notFound: `This site has no page ${pageId}.` });
  } catch (error) {
    if (isUniqueViolation(error) && changes.slug !== undefined) throw new SlugTakenError('page', changes.slug);
    throw error;
  }
  return requirePage(db, siteId, pageId);
}

export async function deletePage(db: Database, siteId: number, pageId: number): Promise<void> {
  const deleted = await db('pages').where({ id: pageId, site_id: siteId }).delete();
  if (deleted === 0) throw new NotFoundError(`This site has no page ${pageId}.`);
}
