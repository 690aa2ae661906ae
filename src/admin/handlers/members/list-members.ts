import { listMembers as listSiteMembers } from '../../../people/members.js';
import type { AdminHandler } from '../../api/types.js';
import { memberRepresentation } from './representation.js';

/** GET /members (members:read): accounts with a role at this site, with their roles here; keyset-paginated. */
export const listMembers: AdminHandler<'listMembers'> = async ({ db, site, query }) => {
  const page = await listSiteMembers(db, site.id, { role: query.role, q: query.q }, query);
  return { status: 200, body: { data: page.members.map(memberRepresentation), nextCursor: page.nextCursor } };
};
