import { expect } from 'chai';
import type { AdminApi, OperationId } from './support/admin.js';

/** Shared by the content area's admin API tests (test/admin-content*.test.ts). */

export const CONTENT_SCOPES = ['appearance:read', 'appearance:write', 'posts:read', 'posts:write', 'pages:read', 'pages:write', 'comments:read', 'forms:read', 'storage:write'];

interface ListBody<T> {
  data: T[];
  nextCursor: string | null;
}

/**
 * Walks a list operation page by page (`limit` each) and answers every row in order, checking that each page but the
 * last is full and that no id repeats.
 */
export async function walkList<T extends { id: number }>(api: AdminApi, operationId: OperationId, options: { query?: Record<string, string | number | boolean>; path?: Record<string, string>; limit: number }): Promise<{ rows: T[]; pages: number }> {
  const rows: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: Record<string, string | number | boolean> = { ...options.query, limit: options.limit, ...(cursor === null ? {} : { cursor }) };
    const answer = await api.call<ListBody<T>>(operationId, { query, ...(options.path ? { path: options.path } : {}) });
    expect(answer.status, answer.text).to.equal(200);
    pages += 1;
    cursor = answer.body.nextCursor;
    if (cursor !== null) expect(answer.body.data).to.have.length(options.limit);
    rows.push(...answer.body.data);
    if (pages > 100) throw new Error('the list does not end');
  } while (cursor !== null);
  expect(new Set(rows.map((row) => row.id)).size, 'no row repeats').to.equal(rows.length);
  return { rows, pages };
}

export function ids(rows: ReadonlyArray<{ id: number }>): number[] {
  return rows.map((row) => row.id);
}
