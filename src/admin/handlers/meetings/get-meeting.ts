import { requireMeeting } from '../../../scheduling/meetings.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { meetingWithSeatsRepresentation } from './representation.js';

/** GET /meetings/{meetingId} (events:read): one meeting of this site with its seats. */
export const getMeeting: AdminHandler<'getMeeting'> = async ({ db, site, principal, path }) => {
  const meeting = await requireMeeting(db, site, principal.actor, path.meetingId);
  return { status: 200, body: meetingWithSeatsRepresentation(meeting), headers: { ETag: etagOf(meeting.version) } };
};
