import { joinSiteProfile, profileColumn } from '../accounts/site-profiles.js';
import type { RecordedActor } from '../clients/actors.js';
import { isSiteMember } from '../accounts/roles.js';
import type { Knex } from 'knex';
import { requireDate, toDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError, SlugTakenError, ValidationError } from '../shared/errors.js';
import { contentStatusOf, type ContentStatus, type UserRef } from './shared.js';
import { type Queryable, isUniqueViolation, whereContains } from '../db/queries.js';
import { withTransaction } from '../db/transaction.js';

/**
 * Blog posts as operators manage them (the admin API's /posts, docs/admin-content.md): drafts and published posts,
 * unique slugs per site, publish/unpublish as state transitions, and a delete that never takes members' comments
 * with it.
 */

export interface Post {
  id: number;
  slug: string;
  title: string;
  body: string;
  status: ContentStatus;
  author: UserRef | null;
  /** Who the post is by: the author, or the service client that wrote it without naming one. */
  authoredBy: RecordedActor;
  /** Set the first time the post is published, kept when it is unpublished. */
  publishedAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface PostRow {
  id: number;
  slug: string;
  title: string;
  body: string;
  status: string;
  author_user_id: number | null;
  author_name: string | null;
  author_client_id: string | null;
  published_at: unknown;
  version: number;
  created_at: unknown;
  updated_at: unknown;
}

function postFromRow(row: PostRow): Post {
  return {
    id: Number(row.id),
    slug: row.slug,
    title: row.title,
    body: row.body,
    status: contentStatusOf(row.status),
    author: row.author_user_id === null || row.author_name === null ? null : { id: Number(row.author_user_id), name: row.author_name },
    authoredBy: row.author_user_id !== null ? { kind: 'user', userId: Number(row.author_user_id) } : row.author_client_id === null ? null : { kind: 'client', clientId: row.author_client_id },
    publishedAt: toDate(row.published_at),
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

function postsOf(db: Queryable, siteId: number): Knex.QueryBuilder {
  return joinSiteProfile(db('posts').leftJoin('users', 'users.id', 'posts.author_user_id').leftJoin('oauth_clients as author_client', 'author_client.id', 'posts.author_client_ref'), siteId, 'posts.author_user_id')
    .where('posts.site_id', siteId)
    .select('posts.id', 'posts.slug', 'posts.title', 'posts.body', 'posts.status', 'posts.author_user_id', profileColumn(db, 'name', 'author_name'), 'author_client.client_id as author_client_id', 'posts.published_at', 'posts.version', 'posts.created_at', 'posts.updated_at');
}

export async function requirePost(db: Queryable, siteId: number, postId: number): Promise<Post> {
  const row = (await postsOf(db, siteId).andWhere('posts.id', postId).first()) as PostRow | undefined;
  if (!row) throw new NotFoundError(`This site has no post ${postId}.`);
  return postFromRow(row);
}

// --- Listing ----------------------------------------------------------------------------------------------------------

export interface PostFilters {
  status?: ContentStatus | undefined;
  q?: string | undefined;
}

const POST_SORTS: SortColumns<'createdAt' | 'updatedAt' | 'publishedAt' | 'title'> = {
  createdAt: { column: 'posts.created_at', type: 'time' },
  updatedAt: { column: 'posts.updated_at', type: 'time' },
  publishedAt: { column: 'posts.published_at', type: 'time' },
  title: { column: 'posts.title', type: 'string' },
};

/** Whether a sort needs `status=published` (only published posts are sure to have a publication time). */
export function sortNeedsPublished(sort: string | undefined): boolean {
  return sort === 'publishedAt' || sort === '-publishedAt';
}

export async function listPosts(db: Database, siteId: number, filters: PostFilters, query: ListQuery): Promise<{ posts: Post[]; nextCursor: string | null }> {
  if (sortNeedsPublished(query.sort) && filters.status !== 'published') throw new Error('sorting posts by publishedAt needs status=published');
  const builder = postsOf(db, siteId);
  if (filters.status !== undefined) builder.andWhere('posts.status', filters.status);
  if (filters.q !== undefined) whereContains(builder, ['posts.title', 'posts.body'], filters.q);
  const page = await listPage<PostRow, keyof typeof POST_SORTS>(builder, query, { sorts: POST_SORTS, defaultSort: '-createdAt', filters: { ...filters }, idColumn: 'posts.id' });
  return { posts: page.rows.map(postFromRow), nextCursor: page.nextCursor };
}

// --- Creating and changing ----------------------------------------------------------------------------------------------

async function requireAuthor(db: Queryable, siteId: number, userId: number): Promise<void> {
  if (!(await isSiteMember(db, siteId, userId))) {
    throw new ValidationError('The author must be a user of this site.', [{ pointer: '/authorUserId', message: `user ${userId} has no role at this site` }]);
  }
}

async function requireSlugFree(db: Queryable, siteId: number, slug: string, exceptPostId?: number): Promise<void> {
  const other = (await db('posts').where({ site_id: siteId, slug }).first('id')) as { id: number } | undefined;
  if (other && Number(other.id) !== exceptPostId) throw new SlugTakenError('post', slug);
}

export interface NewPost {
  slug: string;
  title: string;
  body: string;
  /** A person; null when a service client writes the post as itself (`authorClientRef`). */
  authorUserId: number | null;
  authorClientRef?: number | null;
}

/** Creates a draft post. 409 `slug_taken` when the site has a post with this slug (checked, and enforced by the index). */
export async function createPost(db: Database, siteId: number, input: NewPost): Promise<Post> {
  if (input.title.trim() === '') throw new ValidationError('The post is not valid.', [{ pointer: '/title', message: 'must not be blank' }]);
  if (input.authorUserId !== null) await requireAuthor(db, siteId, input.authorUserId);
  await requireSlugFree(db, siteId, input.slug);
  const now = new Date();
  let id: number;
  try {
    const [inserted] = await db('posts').insert({
      site_id: siteId,
      slug: input.slug,
      title: input.title.trim(),
      body: input.body,
      author_user_id: input.authorUserId,
      author_client_ref: input.authorUserId === null ? (input.authorClientRef ?? null) : null,
      status: 'draft',
      published_at: null,
      version: 1,
      created_at: now,
      updated_at: now,
    });
    id = Number(inserted);
  } catch (error) {
    if (isUniqueViolation(error)) throw new SlugTakenError('post', input.slug);
    throw error;
  }
  return requirePost(db, siteId, id);
}

export interface PostChanges {
  slug?: string;
  title?: string;
  body?: string;
  authorUserId?: number | null;
}

/** A merge patch of a post, applied only at `expectedVersion` (ConflictError `version_mismatch` → 412). */
export async function updatePost(db: Database, siteId: number, postId: number, changes: PostChanges, expectedVersion: number): Promise<Post> {
  const current = await requirePost(db, siteId, postId);
  const columns: Record<string, unknown> = {};
  if (changes.title !== undefined) {
    if (changes.title.trim() === '') throw new ValidationError('The post is not valid.', [{ pointer: '/title', message: 'must not be blank' }]);
    if (changes.title.trim() !== current.title) columns.title = changes.title.trim();
  }
  if (changes.body !== undefined && changes.body !== current.body) columns.body = changes.body;
  if (changes.authorUserId !== undefined && changes.authorUserId !== (current.author?.id ?? null)) {
    if (changes.authorUserId !== null) await requireAuthor(db, siteId, changes.authorUserId);
    columns.author_user_id = changes.authorUserId;
    // A named author (or none) replaces the service client that wrote the post.
    columns.author_client_ref = null;
  }
  if (changes.slug !== undefined && changes.slug !== current.slug) {
    await requireSlugFree(db, siteId, changes.slug, postId);
    columns.slug = changes.slug;
  }
  try {
    await updateVersionedRow(db, 'posts', { id: postId, site_id: siteId }, expectedVersion, columns, { what: 'post', notFound: `This site has no post ${postId}.` });
  } catch (error) {
    if (isUniqueViolation(error) && changes.slug !== undefined) throw new SlugTakenError('post', changes.slug);
    throw error;
  }
  return requirePost(db, siteId, postId);
}

function invalidTransition(post: Post, action: 'publish' | 'unpublish'): ConflictError {
  return new ConflictError(
    action === 'publish' ? `Post ${post.id} is already published.` : `Post ${post.id} is a draft (status "${post.status}"): only a published post can be unpublished.`,
    'invalid_state_transition',
  );
}

/**
 * draft → published; `published_at` is set on the first publication only. A compare-and-set on the status, so of two
 * concurrent calls one publishes and the other gets 409 `invalid_state_transition`.
 */
export async function publishPost(db: Database, siteId: number, postId: number): Promise<Post> {
  const now = new Date();
  const updated = await db('posts')
    .where({ id: postId, site_id: siteId, status: 'draft' })
    .update({ status: 'published', published_at: db.raw('coalesce(published_at, ?)', [now]), version: db.raw('version + 1'), updated_at: now });
  const post = await requirePost(db, siteId, postId);
  if (updated === 0) throw invalidTransition(post, 'publish');
  return post;
}

/** published → draft; the post keeps its `publishedAt` and its comments. */
export async function unpublishPost(db: Database, siteId: number, postId: number): Promise<Post> {
  const updated = await db('posts')
    .where({ id: postId, site_id: siteId, status: 'published' })
    .update({ status: 'draft', version: db.raw('version + 1'), updated_at: new Date() });
  const post = await requirePost(db, siteId, postId);
  if (updated === 0) throw invalidTransition(post, 'unpublish');
  return post;
}

/** Members' comments on the post (the comments table refers to posts by kind and id, without a foreign key). */
export async function countPostComments(db: Queryable, siteId: number, postId: number): Promise<number> {
  const row = (await db('comments').where({ site_id: siteId, target_kind: 'post', target_id: postId }).count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

/** Deletes a post that nobody has commented on; otherwise 409 `post_has_comments` (unpublish it instead). */
export async function deletePost(db: Database, siteId: number, postId: number): Promise<void> {
  await withTransaction(db, async (trx) => {
    const post = await requirePost(trx, siteId, postId);
    const comments = await countPostComments(trx, siteId, postId);
    if (comments > 0) {
      throw new ConflictError(`Post ${post.id} has ${comments} comment${comments === 1 ? '' : 's'} by members, which deleting it would orphan. Unpublish it instead.`, 'post_has_comments');
    }
    await trx('posts').where({ id: postId, site_id: siteId }).delete();
  });
}
