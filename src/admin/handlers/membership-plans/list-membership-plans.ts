import { listPlans } from '../../../people/membership-plans.js';
import type { AdminHandler } from '../../api/types.js';
import { planRepresentation } from './representation.js';

/** GET /membership-plans (membership_plans:read): the site's plans, filtered by active and interval; keyset-paginated. */
export const listMembershipPlans: AdminHandler<'listMembershipPlans'> = async ({ db, site, query }) => {
  const page = await listPlans(db, site.id, { active: query.active, billingInterval: query.billingInterval }, query);
  return { status: 200, body: { data: page.plans.map(planRepresentation), nextCursor: page.nextCursor } };
};
