import type { ReadResourceResult } from '@modelcontextprotocol/server';
import type { PageInfo } from '../format.js';
import { ResourceUnavailableError } from '../resource.js';
import type { ToolContext } from '../session.js';
import { ToolError, type McpTool } from '../tool.js';

/** What every resource of ours holds: one JSON document. */
export const JSON_MIME_TYPE = 'application/json';

/** How long a client may reuse what it read (2026-07-28 `ttlMs`). */
export const TTL = {
  /** The school's name, contact and counts change rarely. */
  profile: 5 * 60_000,
  /** A course published or edited shows within a minute. */
  catalogue: 60_000,
  /** A member's own data (progress, schedule) changes as they study: read it again every time. */
  member: 0,
} as const;

/** The contents of a JSON resource: one text item at its URI. */
export function jsonContents(uri: string, value: unknown): ReadResourceResult['contents'] {
  return [{ uri, mimeType: JSON_MIME_TYPE, text: JSON.stringify(value) }];
}

/**
 * A tool's structured result, read for a resource: the resource holds exactly what the tool returns. A value the tool
 * cannot find (`not_found`) or refuses as an argument (`invalid_request`: a template value no course could have) means
 * the URI names nothing, so the read answers -32602 with the URI; anything else is thrown on as it is.
 */
export async function toolResult<T>(tool: McpTool, args: Record<string, unknown>, context: ToolContext): Promise<T> {
  try {
    return (await tool.structured(args, context)) as T;
  } catch (error) {
    if (error instanceof ToolError && (error.code === 'not_found' || error.code === 'invalid_request')) throw new ResourceUnavailableError(error.message);
    throw error;
  }
}

/** One page of a paged tool result: its items, the total and where the next page starts. */
export interface ToolPage<T> {
  items: T[];
  pageInfo: PageInfo;
  totalCount: number;
}

/**
 * Every item of a paged tool, page after page through the tool itself, up to `limit` items: a resource is one
 * document, and the cap keeps one read bounded. `truncated` says the list went on beyond it.
 */
export async function everyItem<T>(limit: number, page: (cursor: string | undefined) => Promise<ToolPage<T>>): Promise<{ items: T[]; totalCount: number; truncated: boolean }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const current = await page(cursor);
    items.push(...current.items);
    const next = current.pageInfo.nextCursor;
    if (!current.pageInfo.hasNextPage || next === null) return { items: items.slice(0, limit), totalCount: current.totalCount, truncated: items.length > limit };
    if (items.length >= limit) return { items: items.slice(0, limit), totalCount: current.totalCount, truncated: true };
    cursor = next;
  }
}

/** A case-insensitive LIKE prefix pattern, LIKE's wildcards and `!` escaped with `!` (as the catalogue search does). */
export function prefixPattern(prefix: string): string {
  return `${prefix.toLowerCase().replace(/[!%_]/g, (character) => `!${character}`)}%`;
}

/** Completions are suggestions: past this many, the client is told there are more (`hasMore`). */
export const COMPLETION_SCAN = 1000;
