import { runningDeprecations } from '../../../deprecations/catalog.js';
import { deprecationUsageReport } from '../../../deprecations/report.js';
import { usageDaysProblem } from '../../../usage/report.js';
import { InvalidRequestProblem } from '../../api/problems.js';
import type { AdminHandler } from '../../api/types.js';

/** GET /deprecations/usage (school:read): the deprecated elements of the running APIs and who used them lately. */
export const getDeprecationUsage: AdminHandler<'getDeprecationUsage'> = async ({ db, site, variant, usageRetentionDays, query }) => {
  const days = query.days ?? 7;
  const problem = usageDaysProblem(days, usageRetentionDays);
  if (problem !== null) throw new InvalidRequestProblem(`The query parameter days is out of range: ${problem}.`, [{ parameter: 'days', message: problem }]);
  const report = await deprecationUsageReport(db, site.id, runningDeprecations(variant), days, usageRetentionDays);
  return { status: 200, body: report };
};
