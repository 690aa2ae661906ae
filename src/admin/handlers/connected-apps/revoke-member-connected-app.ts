import { disconnectApp } from '../../../clients/connected-apps.js';
import { requireMember } from '../../../people/members.js';
import type { AdminHandler } from '../../api/types.js';

/**
 * DELETE /members/{userId}/connected-apps/{grantId} (members:write): the member's Disconnect, by an operator: every
 * token of the grant ends and the back-channel logout is queued. Another member's grant is a 404 and stays.
 */
export const revokeMemberConnectedApp: AdminHandler<'revokeMemberConnectedApp'> = async ({ db, site, path, log }) => {
  const member = await requireMember(db, site.id, path.userId);
  const app = await disconnectApp(db, site, path.grantId, { userId: member.id });
  log.info({ event: 'connected_app_revoked', userId: member.id, clientRef: app.client.ref }, 'connected app revoked by an operator');
  return { status: 204 };
};
