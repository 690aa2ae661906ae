import { createSubscription as createSiteSubscription } from '../../../people/subscriptions.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { subscriptionRepresentation } from './representation.js';

/** POST /subscriptions (subscriptions:write): grants a member an active plan for a first period. */
export const createSubscription: AdminHandler<'createSubscription'> = async ({ db, site, baseUrl, body }) => {
  const subscription = await createSiteSubscription(db, site.id, body);
  return { status: 201, body: subscriptionRepresentation(subscription), headers: { ETag: etagOf(subscription.version), Location: `${baseUrl}/subscriptions/${subscription.id}` } };
};
