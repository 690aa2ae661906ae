import { listEvents as listSiteEvents } from '../../../scheduling/events.js';
import type { AdminHandler } from '../../api/types.js';
import { eventRepresentation } from './representation.js';

/** GET /events (events:read): one keyset page of the site's events, filtered by status and start window. */
export const listEvents: AdminHandler<'listEvents'> = async ({ db, site, query }) => {
  const { status, startsFrom, startsTo } = query;
  const page = await listSiteEvents(db, site.id, { status, startsFrom, startsTo }, query);
  return { status: 200, body: { data: page.events.map(eventRepresentation), nextCursor: page.nextCursor } };
};
