import type { Page } from '../../member/pagination.js';

/** A Relay connection (edges with cursors, nodes, pageInfo, totalCount) from a domain page. */
export interface Connection<T, Total extends number | null = number> {
  edges: Array<{ cursor: string; node: T }>;
  nodes: T[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: Total;
}

/**
 * A connection whose total may be unknown (null) until its `totalCount` resolver counts it: lists whose count costs
 * a query of its own answer it only when a client selects it.
 */
export type LazyTotalConnection<T> = Connection<T, number | null>;

/**
 * The connection of a page. `edges` and `pageInfo` are built on first read, so an operation that selects only
 * `nodes` (and `totalCount`) never computes a cursor.
 */
export function toConnection<T, Total extends number | null>(page: Omit<Page<T>, 'totalCount'> & { totalCount: Total }): Connection<T, Total> {
  let edges: Connection<T, Total>['edges'] | undefined;
  let pageInfo: Connection<T, Total>['pageInfo'] | undefined;
  return {
    get edges() {
      edges ??= page.nodes.map((node, index) => ({ cursor: page.cursors[index] ?? '', node }));
      return edges;
    },
    nodes: page.nodes,
    get pageInfo() {
      const { cursors } = page;
      pageInfo ??= { hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage, startCursor: cursors[0] ?? null, endCursor: cursors[cursors.length - 1] ?? null };
      return pageInfo;
    },
    totalCount: page.totalCount,
  };
}
