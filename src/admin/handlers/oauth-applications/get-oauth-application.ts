import { requireApplication } from '../../../clients/applications.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { applicationRepresentation } from './representation.js';

/** GET /oauth-applications/{clientId} (school:read): one application of this site (404 for any other site's). */
export const getOAuthApplication: AdminHandler<'getOAuthApplication'> = async ({ db, site, path }) => {
  const application = await requireApplication(db, site.id, path.clientId);
  return { status: 200, body: applicationRepresentation(application), headers: { ETag: etagOf(application.client.version) } };
};
