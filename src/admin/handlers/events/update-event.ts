import { updateEvent as updateSiteEvent } from '../../../scheduling/events.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { eventRepresentation } from './representation.js';

/** PATCH /events/{eventId} (events:write): merge patch, applied only at the version If-Match names. */
export const updateEvent: AdminHandler<'updateEvent'> = async ({ db, site, path, headers, body }) => {
  const event = await updateSiteEvent(db, site.id, path.eventId, body, versionFromIfMatch(headers['If-Match']));
  return { status: 200, body: eventRepresentation(event), headers: { ETag: etagOf(event.version) } };
};
