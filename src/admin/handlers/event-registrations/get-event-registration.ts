import { requireRegistration } from '../../../scheduling/registrations.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { registrationRepresentation } from './representation.js';

/** GET /events/{eventId}/registrations/{registrationId} (events:read): one registration, with its ETag. */
export const getEventRegistration: AdminHandler<'getEventRegistration'> = async ({ db, site, path }) => {
  const registration = await requireRegistration(db, site.id, path.eventId, path.registrationId);
  return { status: 200, body: registrationRepresentation(registration), headers: { ETag: etagOf(registration.version) } };
};
