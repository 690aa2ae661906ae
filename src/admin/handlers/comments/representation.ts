import type { components } from '../../../../generated/admin-api.js';
import type { Comment as CommentModel } from '../../../content/comments.js';

export type Comment = components['schemas']['Comment'];

export function commentRepresentation(comment: CommentModel): Comment {
  return {
    id: comment.id,
    targetKind: comment.targetKind,
    targetId: comment.targetId,
    body: comment.body,
    state: comment.state,
    author: comment.author,
    createdAt: comment.createdAt.toISOString(),
    updatedAt: comment.updatedAt.toISOString(),
  };
}
