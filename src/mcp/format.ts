import type { Page } from '../member/pagination.js';

/**
 * How tool results spell values: times as RFC 3339 UTC with whole seconds (the member GraphQL API's `DateTime`), ids
 * as the same opaque node ids GraphQL uses, so an agent can use both interfaces on the same objects.
 */
export { dateTime, optionalDateTime } from '../shared/time.js';

export interface PageInfo {
  hasNextPage: boolean;
  /** Pass as `cursor` to get the next page; null on the last page. */
  nextCursor: string | null;
}

/** Forward paging: the next page starts after the last item of this one. */
export function forwardPageInfo(page: Pick<Page<unknown>, 'hasNextPage' | 'cursors'>): PageInfo {
  return { hasNextPage: page.hasNextPage, nextCursor: page.hasNextPage ? (page.cursors.at(-1) ?? null) : null };
}
