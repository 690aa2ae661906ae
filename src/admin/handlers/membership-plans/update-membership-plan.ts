import { updatePlan } from '../../../people/membership-plans.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { planRepresentation } from './representation.js';

/** PATCH /membership-plans/{planId} (membership_plans:write): merge patch at the version If-Match names. */
export const updateMembershipPlan: AdminHandler<'updateMembershipPlan'> = async ({ db, site, path, headers, body }) => {
  const plan = await updatePlan(db, site.id, path.planId, body, versionFromIfMatch(headers['If-Match']));
  return { status: 200, body: planRepresentation(plan), headers: { ETag: etagOf(plan.version) } };
};
