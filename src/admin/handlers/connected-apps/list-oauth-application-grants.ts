import { requireApplication } from '../../../clients/applications.js';
import { listClientGrants } from '../../../clients/connected-apps.js';
import type { AdminHandler } from '../../api/types.js';
import { connectedAppRepresentation } from './representation.js';

/** GET /oauth-applications/{clientId}/grants (members:read): every member's live grant of one application. */
export const listOAuthApplicationGrants: AdminHandler<'listOAuthApplicationGrants'> = async ({ db, site, path, query }) => {
  const { client } = await requireApplication(db, site.id, path.clientId);
  const page = await listClientGrants(db, site.id, client.ref, query);
  return { status: 200, body: { data: page.apps.map(connectedAppRepresentation), nextCursor: page.nextCursor } };
};
