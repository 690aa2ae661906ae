import { createConsultingMeeting as openMeeting } from '../../../scheduling/meetings.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { meetingWithSeatsRepresentation } from './representation.js';

/** POST /consulting-services/{serviceId}/meetings (events:write): opens a meeting of the service, state available. */
export const createConsultingMeeting: AdminHandler<'createConsultingMeeting'> = async ({ db, site, principal, baseUrl, path, body }) => {
  const meeting = await openMeeting(db, site, principal.actor, path.serviceId, body);
  return { status: 201, body: meetingWithSeatsRepresentation(meeting), headers: { ETag: etagOf(meeting.version), Location: `${baseUrl}/meetings/${meeting.id}` } };
};
