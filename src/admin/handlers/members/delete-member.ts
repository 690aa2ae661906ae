import { removeMember } from '../../../people/members.js';
import { actingOperator } from '../../api/security.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /members/{userId} (members:write): takes every role here away; the account and its history stay. */
export const deleteMember: AdminHandler<'deleteMember'> = async ({ db, site, principal, path, log }) => {
  await removeMember(db, site.id, actingOperator(principal), path.userId);
  log.info({ event: 'member_removed', userId: path.userId }, 'member removed from the site');
  return { status: 204 };
};
