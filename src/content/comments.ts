import { joinSiteProfile, profileColumn } from '../accounts/site-profiles.js';
import type { Knex } from 'knex';
import { requireDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { NotFoundError } from '../shared/errors.js';
import type { Queryable } from '../db/queries.js';
import type { UserRef } from './shared.js';

/** Members' comments on courses, lectures and posts, read by operators (the admin API's /comments). */

export type CommentTargetKind = 'course' | 'lecture' | 'post';
export type CommentState = 'visible' | 'hidden';

export interface Comment {
  id: number;
  targetKind: CommentTargetKind;
  targetId: number;
  body: string;
  state: CommentState;
  author: UserRef;
  createdAt: Date;
  updatedAt: Date;
}

interface CommentRow {
  id: number;
  target_kind: string;
  target_id: number;
  body: string;
  state: string;
  user_id: number;
  author_name: string;
  created_at: unknown;
  updated_at: unknown;
}

const TARGET_KINDS: readonly CommentTargetKind[] = ['course', 'lecture', 'post'];

function commentFromRow(row: CommentRow): Comment {
  const targetKind = TARGET_KINDS.find((kind) => kind === row.target_kind);
  if (targetKind === undefined) throw new Error(`comment ${row.id} has the unknown target kind ${row.target_kind}`);
  return {
    id: Number(row.id),
    targetKind,
    targetId: Number(row.target_id),
    body: row.body,
    state: row.state === 'hidden' ? 'hidden' : 'visible',
    author: { id: Number(row.user_id), name: row.author_name },
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

function commentsOf(db: Queryable, siteId: number): Knex.QueryBuilder {
  return joinSiteProfile(db('comments').join('users', 'users.id', 'comments.user_id'), siteId, 'comments.user_id')
    .where('comments.site_id', siteId)
    .select('comments.id', 'comments.target_kind', 'comments.target_id', 'comments.body', 'comments.state', 'comments.user_id', profileColumn(db, 'name', 'author_name'), 'comments.created_at', 'comments.updated_at');
}

export async function requireComment(db: Queryable, siteId: number, commentId: number): Promise<Comment> {
  const row = (await commentsOf(db, siteId).andWhere('comments.id', commentId).first()) as CommentRow | undefined;
  if (!row) throw new NotFoundError(`This site has no comment ${commentId}.`);
  return commentFromRow(row);
}

export interface CommentFilters {
  targetKind?: CommentTargetKind | undefined;
  targetId?: number | undefined;
  state?: CommentState | undefined;
  userId?: number | undefined;
}

const COMMENT_SORTS: SortColumns<'createdAt'> = {
  createdAt: { column: 'comments.created_at', type: 'time' },
};

export async function listComments(db: Database, siteId: number, filters: CommentFilters, query: ListQuery): Promise<{ comments: Comment[]; nextCursor: string | null }> {
  const builder = commentsOf(db, siteId);
  if (filters.targetKind !== undefined) builder.andWhere('comments.target_kind', filters.targetKind);
  if (filters.targetId !== undefined) builder.andWhere('comments.target_id', filters.targetId);
  if (filters.state !== undefined) builder.andWhere('comments.state', filters.state);
  if (filters.userId !== undefined) builder.andWhere('comments.user_id', filters.userId);
  const page = await listPage<CommentRow, keyof typeof COMMENT_SORTS>(builder, query, { sorts: COMMENT_SORTS, defaultSort: '-createdAt', filters: { ...filters }, idColumn: 'comments.id' });
  return { comments: page.rows.map(commentFromRow), nextCursor: page.nextCursor };
}
