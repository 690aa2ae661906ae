import { cancelMeeting as cancelSiteMeeting } from '../../../scheduling/meetings.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { meetingWithSeatsRepresentation } from './representation.js';

/** POST /meetings/{meetingId}/cancel (events:write): available|scheduled → canceled; seats are kept. */
export const cancelMeeting: AdminHandler<'cancelMeeting'> = async ({ db, site, principal, path, body }) => {
  const meeting = await cancelSiteMeeting(db, site, principal.actor, path.meetingId, { reason: body?.reason });
  return { status: 200, body: meetingWithSeatsRepresentation(meeting), headers: { ETag: etagOf(meeting.version) } };
};
