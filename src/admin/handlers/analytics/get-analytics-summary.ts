import { analyticsSummary, resolveWindow } from '../../../analytics/summary.js';
import { InvalidRequestProblem } from '../../api/problems.js';
import type { AdminHandler } from '../../api/types.js';
import { analyticsSummaryRepresentation } from './representation.js';

/** GET /analytics/summary (analytics:read): the site's figures over [from, to), by default the last 30 days. */
export const getAnalyticsSummary: AdminHandler<'getAnalyticsSummary'> = async ({ db, site, query }) => {
  const now = new Date();
  const window = resolveWindow(query.from, query.to, now);
  if (Array.isArray(window)) throw new InvalidRequestProblem('The time window is invalid: see errors.', window);
  const summary = await analyticsSummary(db, site.id, window, now);
  return { status: 200, body: analyticsSummaryRepresentation(summary) };
};
