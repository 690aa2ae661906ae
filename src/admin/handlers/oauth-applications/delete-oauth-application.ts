import { deleteApplication } from '../../../clients/applications.js';
import type { AdminHandler } from '../../api/types.js';

/** DELETE /oauth-applications/{clientId} (school:write): revokes every token pair of the application, then deletes it. */
export const deleteOAuthApplication: AdminHandler<'deleteOAuthApplication'> = async ({ db, site, path, log }) => {
  const { application, revokedPairs } = await deleteApplication(db, site.id, path.clientId);
  log.info({ event: 'oauth_application_deleted', clientRef: application.client.ref, revokedPairs }, 'OAuth application deleted');
  return { status: 204 };
};
