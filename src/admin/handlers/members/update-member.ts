import { memberEtag, updateMemberRoles } from '../../../people/members.js';
import { actingOperator } from '../../api/security.js';
import type { AdminHandler } from '../../api/types.js';
import { memberRepresentation } from './representation.js';

/** PATCH /members/{userId} (members:write): `roles` replaces the set at this site, at the ETag If-Match names. */
export const updateMember: AdminHandler<'updateMember'> = async ({ db, site, principal, path, headers, body }) => {
  const member = await updateMemberRoles(db, site.id, actingOperator(principal), path.userId, body.roles, headers['If-Match']);
  return { status: 200, body: memberRepresentation(member), headers: { ETag: memberEtag(member) } };
};
