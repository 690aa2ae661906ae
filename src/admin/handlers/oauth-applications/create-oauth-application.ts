import { createApplication } from '../../../clients/applications.js';
import { etagOf } from '../../api/etag.js';
import type { AdminHandler } from '../../api/types.js';
import { applicationUrl, settingsFromBody, withSecret } from './representation.js';

/**
 * POST /oauth-applications (school:write): the confidential checkbox decides the kind of client: public (`none` +
 * PKCE S256, no secret) or confidential (`client_secret_post` unless another method is named, the secret in this
 * response and nowhere else). `kind: service` is a client_credentials client with admin scopes and no redirect URIs.
 */
export const createOAuthApplication: AdminHandler<'createOAuthApplication'> = async ({ db, site, principal, body }) => {
  const { application, clientSecret } = await createApplication(db, site.id, {
    name: body.name,
    audience: body.audience,
    confidential: body.confidential,
    kind: body.kind ?? 'operator_created',
    redirectUris: body.redirectUris ?? [],
    scopes: body.scopes,
    vendorClientName: body.vendorClientName,
    createdBy: principal.actor,
    settings: settingsFromBody(body),
  });
  return {
    status: 201,
    body: withSecret(application, clientSecret),
    headers: { ETag: etagOf(application.client.version), Location: applicationUrl(site.origin, application.client.clientId) },
  };
};
