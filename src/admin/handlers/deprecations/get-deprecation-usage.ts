import { runningDeprecations } from '../../../deprecations/catalog.js';
import { deprecationUsageReport } from '../../../deprecations/report.js';
import type { AdminHandler } from '../../api/types.js';

/** GET /deprecations/usage (school:read): the deprecated elements of the running APIs and who used them lately. */
export const getDeprecationUsage: AdminHandler<'getDeprecationUsage'> = async ({ db, site, variant, query }) => {
  const report = await deprecationUsageReport(db, site.id, runningDeprecations(variant), query.days ?? 7);
  return {
    status: 200,
    body: {
      ...report,
      elements: report.elements.map((element) => ({ ...element, clients: element.clients.map((client) => ({ ...client, lastUsedAt: client.lastUsedAt.toISOString() })) })),
    },
  };
};
