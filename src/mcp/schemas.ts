import { z } from 'zod';
import { decodeNodeId } from '../member/ids.js';

/** Shared pieces of the tools' input and output schemas. */

export const dateTime = z.iso.datetime().describe('RFC 3339 instant in UTC, whole seconds, e.g. 2026-03-01T09:30:00Z');

/** Paging input: a page size and the cursor of the previous page. */
export function pageInput(defaultSize: number, maxSize: number) {
  return {
    first: z
      .number()
      .int()
      .min(1)
      .max(maxSize)
      .optional()
      .describe(`How many items to return (default ${defaultSize}, at most ${maxSize}).`),
    cursor: z.string().min(1).max(512).optional().describe('The `pageInfo.nextCursor` of the previous call, to get the next page. Omit for the first page.'),
  };
}

export const pageInfo = z
  .object({
    hasNextPage: z.boolean().describe('True when more items follow this page.'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` to get the next page; null on the last page.'),
  })
  .describe('Paging state.');

export const totalCount = z.number().int().min(0).describe('Number of items in the whole list, ignoring paging.');

export const price = z
  .object({
    amount: z.number().int().describe('Integer minor units of `currency` (e.g. 360000 with TWD is NT$3,600.00).'),
    currency: z.string().describe('ISO 4217 code, e.g. TWD.'),
  })
  .nullable()
  .describe('List price; null when there is none.');

export const courseReference = z
  .string()
  .min(1)
  .max(191)
  .describe('The course: its slug (e.g. "foundations-of-typography") or its id as returned by another tool.');

/** A course argument: an opaque Course id (as GraphQL and the tools return it) or a slug. */
export function parseCourseReference(value: string): { id: number } | { slug: string } {
  const id = decodeNodeId('Course', value);
  return id === null ? { slug: value } : { id };
}
