import type { Database } from '../db/connection.js';
import { usageDaysProblem, usageOfElements, usageWindow } from '../usage/report.js';
import type { KnownDeprecation } from './catalog.js';
import type { DeprecatedApi } from './usage.js';

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
  /** Most used first; `lastUsedAt` in ISO 8601 (UTC). Deprecated elements are never public, so every call has a client. */
  clients: Array<{ clientId: string; clientName: string; uses: number; lastUsedAt: string }>;
}

/**
 * Every deprecation of the running contracts with its uses in the window, most used first. `retentionDays` is the
 * longest window (config.usageRetentionDays).
 */
export async function deprecationUsageReport(db: Database, siteId: number, catalog: readonly KnownDeprecation[], days: number, retentionDays: number, now: Date = new Date()): Promise<DeprecationUsageReport> {
  const problem = usageDaysProblem(days, retentionDays);
  if (problem !== null) throw new RangeError(problem);
  const window = usageWindow(days, now);
  const elements = new Map<string, DeprecatedElementUsage>();
  const keyOf = (api: string, element: string) => `${api} ${element}`;
  for (const known of catalog) {
    elements.set(keyOf(known.api, known.element), { api: known.api, element: known.element, where: known.where, sunset: known.sunset, replacement: known.replacement, uses: 0, clients: [] });
  }
  for (const used of await usageOfElements(db, siteId, window, catalog)) {
    const entry = elements.get(keyOf(used.api, used.element));
    if (!entry) continue;
    for (const { clientId, clientName, uses, lastUsedAt } of used.clients) {
      if (clientId === null || clientName === null) continue;
      entry.uses += uses;
      entry.clients.push({ clientId, clientName, uses, lastUsedAt });
    }
  }
  const sorted = [...elements.values()].sort((a, b) => b.uses - a.uses || a.api.localeCompare(b.api) || a.element.localeCompare(b.element));
  return { days, from: window.from, to: window.to, elements: sorted };
}
