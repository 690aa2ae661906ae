import { listRegistrations } from '../../../scheduling/registrations.js';
import type { AdminHandler } from '../../api/types.js';
import { registrationRepresentation } from './representation.js';

/** GET /events/{eventId}/registrations (events:read): one keyset page of the event's registrations, every state. */
export const listEventRegistrations: AdminHandler<'listEventRegistrations'> = async ({ db, site, path, query }) => {
  const page = await listRegistrations(db, site.id, path.eventId, { state: query.state }, query);
  return { status: 200, body: { data: page.registrations.map(registrationRepresentation), nextCursor: page.nextCursor } };
};
