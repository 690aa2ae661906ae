import { updateRegistration } from '../../../scheduling/registrations.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { registrationRepresentation } from './representation.js';

/** PATCH /events/{eventId}/registrations/{registrationId} (events:write): a state transition, at the version If-Match names. */
export const updateEventRegistration: AdminHandler<'updateEventRegistration'> = async ({ db, site, path, headers, body }) => {
  const registration = await updateRegistration(db, site.id, path.eventId, path.registrationId, { state: body.state }, versionFromIfMatch(headers['If-Match']));
  return { status: 200, body: registrationRepresentation(registration), headers: { ETag: etagOf(registration.version) } };
};
