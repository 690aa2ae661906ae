import { requirePlan } from '../../../people/membership-plans.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { planRepresentation } from './representation.js';

/** GET /membership-plans/{planId} (membership_plans:read). */
export const getMembershipPlan: AdminHandler<'getMembershipPlan'> = async ({ db, site, path }) => {
  const plan = await requirePlan(db, site.id, path.planId);
  return { status: 200, body: planRepresentation(plan), headers: { ETag: etagOf(plan.version) } };
};
