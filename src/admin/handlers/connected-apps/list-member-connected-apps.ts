import { listMemberConnectedApps as listConnectedApps } from '../../../clients/connected-apps.js';
import { requireMember } from '../../../people/members.js';
import type { AdminHandler } from '../../api/types.js';
import { connectedAppRepresentation } from './representation.js';

/** GET /members/{userId}/connected-apps (members:read): the member's live grants at this site, as their page shows them. */
export const listMemberConnectedApps: AdminHandler<'listMemberConnectedApps'> = async ({ db, site, path, query }) => {
  const member = await requireMember(db, site.id, path.userId);
  const page = await listConnectedApps(db, site.id, member.id, query);
  return { status: 200, body: { data: page.apps.map(connectedAppRepresentation), nextCursor: page.nextCursor } };
};
