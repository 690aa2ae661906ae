import { updateSubscription as updateSiteSubscription } from '../../../people/subscriptions.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { subscriptionRepresentation } from './representation.js';

/** PATCH /subscriptions/{subscriptionId} (subscriptions:write): new period and/or state along the allowed transitions. */
export const updateSubscription: AdminHandler<'updateSubscription'> = async ({ db, site, path, headers, body }) => {
  const subscription = await updateSiteSubscription(db, site.id, path.subscriptionId, body, versionFromIfMatch(headers['If-Match']));
  return { status: 200, body: subscriptionRepresentation(subscription), headers: { ETag: etagOf(subscription.version) } };
};
