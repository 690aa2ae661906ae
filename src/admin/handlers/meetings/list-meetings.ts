import { listMeetings as listSiteMeetings } from '../../../scheduling/meetings.js';
import type { AdminHandler } from '../../api/types.js';
import { meetingRepresentation } from './representation.js';

/** GET /meetings (events:read): one keyset page of the site's consulting and study-group meetings. */
export const listMeetings: AdminHandler<'listMeetings'> = async ({ db, site, principal, query }) => {
  const { serviceId, kind, state, startsFrom, startsTo } = query;
  const page = await listSiteMeetings(db, site, principal.actor, { serviceId, kind, state, startsFrom, startsTo }, query);
  return { status: 200, body: { data: page.meetings.map(meetingRepresentation), nextCursor: page.nextCursor } };
};
