import { createRegistration } from '../../../scheduling/registrations.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { registrationRepresentation } from './representation.js';

/** POST /events/{eventId}/registrations (events:write): registers a member of the site (409 already_registered, event_full, event_canceled). */
export const createEventRegistration: AdminHandler<'createEventRegistration'> = async ({ db, site, baseUrl, path, body }) => {
  const registration = await createRegistration(db, site.id, path.eventId, body.userId);
  return {
    status: 201,
    body: registrationRepresentation(registration),
    headers: { ETag: etagOf(registration.version), Location: `${baseUrl}/events/${path.eventId}/registrations/${registration.id}` },
  };
};
