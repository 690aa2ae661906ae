import { reviewApplication } from '../../../clients/applications.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { applicationRepresentation } from './representation.js';

/** POST /oauth-applications/{clientId}/review (school:write): a metadata-document application may now get its whole scope list. */
export const reviewOAuthApplication: AdminHandler<'reviewOAuthApplication'> = async ({ db, site, path }) => {
  const application = await reviewApplication(db, site.id, path.clientId);
  return { status: 200, body: applicationRepresentation(application), headers: { ETag: etagOf(application.client.version) } };
};
