import { cancelSubscription as cancelSiteSubscription } from '../../../people/subscriptions.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { subscriptionRepresentation } from './representation.js';

/** POST /subscriptions/{subscriptionId}/cancel (subscriptions:write): trialing | active | past_due → canceled. */
export const cancelSubscription: AdminHandler<'cancelSubscription'> = async ({ db, site, path }) => {
  const subscription = await cancelSiteSubscription(db, site.id, path.subscriptionId);
  return { status: 200, body: subscriptionRepresentation(subscription), headers: { ETag: etagOf(subscription.version) } };
};
