import { requireSubscription } from '../../../people/subscriptions.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { subscriptionRepresentation } from './representation.js';

/** GET /subscriptions/{subscriptionId} (subscriptions:read). */
export const getSubscription: AdminHandler<'getSubscription'> = async ({ db, site, path }) => {
  const subscription = await requireSubscription(db, site.id, path.subscriptionId);
  return { status: 200, body: subscriptionRepresentation(subscription), headers: { ETag: etagOf(subscription.version) } };
};
