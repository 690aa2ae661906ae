import { listSubscriptions as listSiteSubscriptions } from '../../../people/subscriptions.js';
import type { AdminHandler } from '../../api/types.js';
import { subscriptionRepresentation } from './representation.js';

/** GET /subscriptions (subscriptions:read): filtered by state, plan and member; keyset-paginated. */
export const listSubscriptions: AdminHandler<'listSubscriptions'> = async ({ db, site, query }) => {
  const page = await listSiteSubscriptions(db, site.id, { state: query.state, planId: query.planId, userId: query.userId }, query);
  return { status: 200, body: { data: page.subscriptions.map(subscriptionRepresentation), nextCursor: page.nextCursor } };
};
