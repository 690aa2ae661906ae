import { confirmMeeting as confirmSiteMeeting } from '../../../scheduling/meetings.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { meetingWithSeatsRepresentation } from './representation.js';

/** POST /meetings/{meetingId}/confirm (events:write): staff confirms a consulting meeting, available → scheduled, as the operator. */
export const confirmMeeting: AdminHandler<'confirmMeeting'> = async ({ db, site, principal, path, body }) => {
  const meeting = await confirmSiteMeeting(db, site, principal.actor, path.meetingId, { roomUrl: body?.roomUrl });
  return { status: 200, body: meetingWithSeatsRepresentation(meeting), headers: { ETag: etagOf(meeting.version) } };
};
