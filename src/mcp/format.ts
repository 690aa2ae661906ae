import type { Page } from '../member/pagination.js';

/**
 * How tool results spell values: times as RFC 3339 UTC with whole seconds (the member GraphQL API's `DateTime`), ids
 * as the same opaque node ids GraphQL uses, so an agent can use both interfaces on the same objects.
 */
export function dateTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function optionalDateTime(date: Date | null): string | null {
  return date === null ? null : dateTime(date);
}

export interface PageInfo {
  hasNextPage: boolean;
  /** Pass as `cursor` to get the next page; null on the last page. */
  nextCursor: string | null;
}

/** Forward paging: the next page starts after the last item of this one. */
export function forwardPageInfo(page: Pick<Page<unknown>, 'hasNextPage' | 'cursors'>): PageInfo {
  return { hasNextPage: page.hasNextPage, nextCursor: page.hasNextPage ? (page.cursors.at(-1) ?? null) : null };
}
