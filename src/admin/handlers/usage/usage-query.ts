import { findClientWithSecret } from '../../../clients/clients.js';
import type { Database } from '../../../db/connection.js';
import { usageDaysProblem } from '../../../usage/report.js';
import { InvalidRequestProblem } from '../../api/problems.js';

/** The window when `days` is not given: a month, or the whole retention when that is shorter. */
export function defaultUsageDays(retentionDays: number): number {
  return Math.min(30, retentionDays);
}

/** `days` as asked, or 400 naming the retention setting when it reaches beyond the counts kept. */
export function requireUsageDays(days: number | undefined, retentionDays: number): number {
  const chosen = days ?? defaultUsageDays(retentionDays);
  const problem = usageDaysProblem(chosen, retentionDays);
  if (problem !== null) throw new InvalidRequestProblem(`The query parameter days is out of range: ${problem}.`, [{ parameter: 'days', message: problem }]);
  return chosen;
}

/** The oauth_clients.id of a client_id of the site, or 400: a filter naming no client of the site is a mistake, not an empty list. */
export async function requireUsageClientRef(db: Database, siteId: number, clientId: string): Promise<number> {
  const found = await findClientWithSecret(db, siteId, clientId);
  if (!found) throw new InvalidRequestProblem(`The site has no OAuth client ${clientId}.`, [{ parameter: 'clientId', message: 'is not a client of this site' }]);
  return found.client.ref;
}
