import { addMember, memberEtag } from '../../../people/members.js';
import { actingOperator } from '../../api/security.js';
import type { AdminHandler } from '../../api/types.js';
import { memberRepresentation } from './representation.js';

/** POST /members (members:write): the account with this email gets the roles here; a new account has no password. */
export const createMember: AdminHandler<'createMember'> = async ({ db, site, principal, baseUrl, body, log }) => {
  const { member, accountCreated } = await addMember(db, site.id, actingOperator(principal), { email: body.email, name: body.name, roles: body.roles });
  log.info({ event: 'member_added', userId: member.id, roles: member.roles, accountCreated }, 'member added');
  return { status: 201, body: memberRepresentation(member), headers: { ETag: memberEtag(member), Location: `${baseUrl}/members/${member.id}` } };
};
