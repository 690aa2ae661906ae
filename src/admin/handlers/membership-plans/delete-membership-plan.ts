import { deletePlan } from '../../../people/membership-plans.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /membership-plans/{planId} (membership_plans:write): only a plan without subscriptions (409 otherwise). */
export const deleteMembershipPlan: AdminHandler<'deleteMembershipPlan'> = async ({ db, site, path }) => {
  await deletePlan(db, site.id, path.planId);
  return { status: 204 };
};
