import { memberEtag, requireMember } from '../../../people/members.js';
import type { AdminHandler } from '../../api/types.js';
import { memberRepresentation } from './representation.js';

/** GET /members/{userId} (members:read): an account with a role here, with this site's roles only (404 otherwise). */
export const getMember: AdminHandler<'getMember'> = async ({ db, site, path }) => {
  const member = await requireMember(db, site.id, path.userId);
  return { status: 200, body: memberRepresentation(member), headers: { ETag: memberEtag(member) } };
};
