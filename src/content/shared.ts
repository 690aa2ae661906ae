
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

