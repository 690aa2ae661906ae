import { elementUsagePage, usageWindow, type UsageFilter } from '../../../usage/report.js';
import { InvalidRequestProblem } from '../../api/problems.js';
import type { AdminHandler } from '../../api/types.js';
import { requireUsageClientRef, requireUsageDays } from './usage-query.js';

const DEFAULT_LIMIT = 20;

/** GET /usage (school:read): the elements of the APIs the site's clients used lately, most used first, with their clients. */
export const listApiUsage: AdminHandler<'listApiUsage'> = async ({ db, site, usageRetentionDays, query }) => {
  const days = requireUsageDays(query.days, usageRetentionDays);
  if (query.element !== undefined && query.prefix !== undefined) {
    throw new InvalidRequestProblem('Give element (one element) or prefix (elements starting with it), not both.', [{ parameter: 'prefix', message: 'cannot be combined with element' }]);
  }
  const filter: UsageFilter = {
    ...(query.api === undefined ? {} : { api: query.api }),
    ...(query.element === undefined ? {} : { element: query.element }),
    ...(query.prefix === undefined ? {} : { prefix: query.prefix }),
    ...(query.clientId === undefined ? {} : { clientRef: await requireUsageClientRef(db, site.id, query.clientId) }),
  };
  const window = usageWindow(days);
  const page = await elementUsagePage(db, site.id, window, filter, { limit: query.limit ?? DEFAULT_LIMIT, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) });
  return { status: 200, body: { ...window, data: page.elements, nextCursor: page.nextCursor } };
};
