import type { Database } from '../db/connection.js';
import type { KnownDeprecation } from './catalog.js';
import { firstDayOf, utcDay } from './days.js';
import { deprecationUsage, type DeprecatedApi } from './usage.js';

/** Which clients of a site used which deprecated element over the last days (docs/versioning.md). */
export interface DeprecationUsageReport {
  days: number;
  /** First and last UTC day counted. */
  from: string;
  to: string;
  elements: DeprecatedElementUsage[];
}

export interface DeprecatedElementUsage {
  api: DeprecatedApi;
  element: string;
  where: string;
  /** Null when the contract gives no valid sunset (the contract lint refuses that). */
  sunset: string | null;
  replacement: string | null;
  uses: number;
  clients: Array<{ clientId: string; clientName: string; uses: number; lastUsedAt: Date }>;
}

/** Why `days` cannot be reported, or null: counts older than the retention (SCHOOLGATE_USAGE_RETENTION_DAYS) are pruned. */
export function deprecationDaysProblem(days: number, retentionDays: number): string | null {
  if (!Number.isInteger(days) || days < 1) return `days must be a whole number from 1 to ${retentionDays}, got ${days}`;
  if (days > retentionDays) return `days ${days} reaches beyond the ${retentionDays} days of usage this instance keeps (SCHOOLGATE_USAGE_RETENTION_DAYS); ask for ${retentionDays} or fewer`;
  return null;
}

/**
 * Every deprecation of the running contracts with its uses in the window, most used first. `retentionDays` is the
 * longest window (config.usageRetentionDays).
 */
export async function deprecationUsageReport(db: Database, siteId: number, catalog: readonly KnownDeprecation[], days: number, retentionDays: number, now: Date = new Date()): Promise<DeprecationUsageReport> {
  const problem = deprecationDaysProblem(days, retentionDays);
  if (problem !== null) throw new RangeError(problem);
  const elements = new Map<string, DeprecatedElementUsage>();
  const keyOf = (api: DeprecatedApi, element: string) => `${api} ${element}`;
  for (const known of catalog) {
    elements.set(keyOf(known.api, known.element), { api: known.api, element: known.element, where: known.where, sunset: known.sunset, replacement: known.replacement, uses: 0, clients: [] });
  }
  // Rows come most used first, so each element's clients do too.
  for (const row of await deprecationUsage(db, siteId, days, catalog, now)) {
    const entry = elements.get(keyOf(row.api, row.element));
    if (!entry) continue;
    entry.uses += row.uses;
    entry.clients.push({ clientId: row.clientId, clientName: row.clientName, uses: row.uses, lastUsedAt: row.lastUsedAt });
  }
  const sorted = [...elements.values()].sort((a, b) => b.uses - a.uses || a.api.localeCompare(b.api) || a.element.localeCompare(b.element));
  return { days, from: firstDayOf(days, now), to: utcDay(now), elements: sorted };
}
