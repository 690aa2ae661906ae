import { deleteEvent as deleteSiteEvent } from '../../../scheduling/events.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /events/{eventId} (events:write): only while nobody registered (409 `event_has_registrations`: cancel it instead). */
export const deleteEvent: AdminHandler<'deleteEvent'> = async ({ db, site, path, log }) => {
  await deleteSiteEvent(db, site.id, path.eventId);
  log.info({ event: 'event_deleted', eventId: path.eventId }, 'Event deleted');
  return { status: 204 };
};
