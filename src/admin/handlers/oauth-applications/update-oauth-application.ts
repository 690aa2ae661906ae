import { updateApplication } from '../../../clients/applications.js';
import { etagOf, versionFromIfMatch } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { applicationRepresentation, settingsFromBody } from './representation.js';

/** PATCH /oauth-applications/{clientId} (school:write): merge patch, applied only at the version If-Match names. */
export const updateOAuthApplication: AdminHandler<'updateOAuthApplication'> = async ({ db, site, path, headers, body }) => {
  const application = await updateApplication(
    db,
    site.id,
    path.clientId,
    {
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(body.redirectUris === undefined ? {} : { redirectUris: body.redirectUris }),
      ...(body.scopes === undefined ? {} : { scopes: body.scopes }),
      ...(body.vendorClientName === undefined ? {} : { vendorClientName: body.vendorClientName }),
      ...settingsFromBody(body),
    },
    versionFromIfMatch(headers['If-Match']),
  );
  return { status: 200, body: applicationRepresentation(application), headers: { ETag: etagOf(application.client.version) } };
};
