import { usageExport } from '../../../usage/export.js';
import type { AdminHandler } from '../../api/types.js';
import { requireUsageDays } from './usage-query.js';

/** GET /usage/export (school:read): the usage export a contract diff reads (`npm run contract:diff -- --usage URL`). */
export const exportApiUsage: AdminHandler<'exportApiUsage'> = async ({ db, site, variant, usageRetentionDays, query }) => {
  const days = requireUsageDays(query.days, usageRetentionDays);
  return { status: 200, body: await usageExport(db, site, variant, days) };
};
