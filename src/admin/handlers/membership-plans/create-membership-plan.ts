import { createPlan } from '../../../people/membership-plans.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { planRepresentation } from './representation.js';

/** POST /membership-plans (membership_plans:write): a new plan, active unless said otherwise. */
export const createMembershipPlan: AdminHandler<'createMembershipPlan'> = async ({ db, site, baseUrl, body }) => {
  const plan = await createPlan(db, site.id, body);
  return { status: 201, body: planRepresentation(plan), headers: { ETag: etagOf(plan.version), Location: `${baseUrl}/membership-plans/${plan.id}` } };
};
