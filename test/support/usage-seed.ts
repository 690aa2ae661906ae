import type { Database } from '../../src/db/connection.js';
import { utcDay } from '../../src/deprecations/days.js';

/**
 * Usage rows written straight into `api_usage` (the table the usage flush writes), so a report test controls every
 * count, day and client, including days in the past, anonymous calls (client_ref 0) and a client deleted since.
 */

export interface SeededUse {
  siteId: number;
  api: 'graphql' | 'admin' | 'mcp';
  element: string;
  /** oauth_clients.id, or 0 for anonymous calls. */
  clientRef: number;
  uses: number;
  /** Whole days before today (UTC); 0 for today. */
  daysAgo?: number;
  /** Minutes before now of the last use that day; 1 unless given. */
  minutesAgo?: number;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

export async function seedUsage(db: Database, uses: readonly SeededUse[], now: Date = new Date()): Promise<void> {
  const rows = uses.map((use) => {
    const day = new Date(now.getTime() - (use.daysAgo ?? 0) * DAY_MS);
    const lastUsed = new Date(Math.min(day.getTime(), now.getTime() - (use.minutesAgo ?? 1) * 60_000));
    return { site_id: use.siteId, day: utcDay(day), api: use.api, element: use.element, client_ref: use.clientRef, uses: use.uses, last_used_at: lastUsed };
  });
  for (let start = 0; start < rows.length; start += 100) await db('api_usage').insert(rows.slice(start, start + 100));
}
