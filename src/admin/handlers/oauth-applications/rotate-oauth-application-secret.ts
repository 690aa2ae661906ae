import { rotateApplicationSecret } from '../../../clients/applications.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { withSecret } from './representation.js';

/** POST /oauth-applications/{clientId}/rotate-secret (school:write): a new secret, shown once; the old one stops at once. */
export const rotateOAuthApplicationSecret: AdminHandler<'rotateOAuthApplicationSecret'> = async ({ db, site, path }) => {
  const { application, clientSecret } = await rotateApplicationSecret(db, site.id, path.clientId);
  return { status: 200, body: withSecret(application, clientSecret), headers: { ETag: etagOf(application.client.version) } };
};
