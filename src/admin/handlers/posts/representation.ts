import type { components } from '../../../../generated/admin-api.js';
import type { Post as PostModel } from '../../../content/posts.js';
import { ADMIN_API_BASE_PATH } from '../../contract.js';

export type Post = components['schemas']['Post'];

export function postRepresentation(post: PostModel): Post {
  return {
    id: post.id,
    slug: post.slug,
    title: post.title,
    body: post.body,
    status: post.status,
    author: post.author,
    authoredBy: post.authoredBy,
    publishedAt: post.publishedAt?.toISOString() ?? null,
    createdAt: post.createdAt.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
  };
}

export function postUrl(origin: string, postId: number): string {
  return `${origin}${ADMIN_API_BASE_PATH}/posts/${postId}`;
}
