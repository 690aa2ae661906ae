import type { Page } from '../../member/pagination.js';

/** A Relay connection (edges with cursors, nodes, pageInfo, totalCount) from a domain page. */
export interface Connection<T> {
  edges: Array<{ cursor: string; node: T }>;
  nodes: T[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

export function toConnection<T>(page: Page<T>): Connection<T> {
  return {
    edges: page.nodes.map((node, index) => ({ cursor: page.cursors[index] ?? '', node })),
    nodes: page.nodes,
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: page.cursors[0] ?? null,
      endCursor: page.cursors[page.cursors.length - 1] ?? null,
    },
    totalCount: page.totalCount,
  };
}
