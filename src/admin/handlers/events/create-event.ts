import { createEvent as createSiteEvent } from '../../../scheduling/events.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { eventRepresentation } from './representation.js';

/** POST /events (events:write): a new event, draft unless said otherwise; 409 `slug_taken` for a used slug. */
export const createEvent: AdminHandler<'createEvent'> = async ({ db, site, baseUrl, body }) => {
  const event = await createSiteEvent(db, site, body);
  return { status: 201, body: eventRepresentation(event), headers: { ETag: etagOf(event.version), Location: `${baseUrl}/events/${event.id}` } };
};
