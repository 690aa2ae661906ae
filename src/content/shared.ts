import type { Queryable } from '../db/queries.js';

/** Helpers shared by the content modules (posts, pages, comments, forms, appearance). */

/** `draft` (not shown on the site) or `published`: posts and pages. */
export type ContentStatus = 'draft' | 'published';

export function contentStatusOf(value: unknown): ContentStatus {
  return value === 'published' ? 'published' : 'draft';
}

/** A user of the site, as the admin API shows authors and respondents. */
export interface UserRef {
  id: number;
  name: string;
}

/** Whether `userId` is an account with a role at the site (authors of posts must be). */
export async function isSiteUser(db: Queryable, siteId: number, userId: number): Promise<boolean> {
  const row = (await db('site_roles').where({ site_id: siteId, user_id: userId }).first('id')) as { id: number } | undefined;
  return row !== undefined;
}
