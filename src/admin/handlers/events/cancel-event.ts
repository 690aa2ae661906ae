import { cancelEvent as cancelSiteEvent } from '../../../scheduling/events.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { eventRepresentation } from './representation.js';

/** POST /events/{eventId}/cancel (events:write): status → canceled; registrations are kept. */
export const cancelEvent: AdminHandler<'cancelEvent'> = async ({ db, site, path }) => {
  const event = await cancelSiteEvent(db, site.id, path.eventId);
  return { status: 200, body: eventRepresentation(event), headers: { ETag: etagOf(event.version) } };
};
