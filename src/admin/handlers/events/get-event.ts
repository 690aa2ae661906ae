import { requireEvent } from '../../../scheduling/events.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { eventRepresentation } from './representation.js';

/** GET /events/{eventId} (events:read): one event of this site with its registered count (404 for any other site's). */
export const getEvent: AdminHandler<'getEvent'> = async ({ db, site, path }) => {
  const event = await requireEvent(db, site.id, path.eventId);
  return { status: 200, body: eventRepresentation(event), headers: { ETag: etagOf(event.version) } };
};
