import type { components } from '../../../../generated/admin-api.js';
import type { Application } from '../../../clients/applications.js';
import { ADMIN_API_BASE_PATH } from '../../contract.js';

export type OAuthApplication = components['schemas']['OAuthApplication'];
export type OAuthApplicationWithSecret = components['schemas']['OAuthApplicationWithSecret'];

export function applicationRepresentation({ client, vendorClientName }: Application): OAuthApplication {
  return {
    clientId: client.clientId,
    name: client.name,
    audience: client.audience,
    confidential: client.confidential,
    tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
    redirectUris: client.redirectUris,
    scopes: client.scopes,
    kind: client.kind,
    reviewed: client.reviewed,
    vendorClientName,
    createdAt: client.createdAt.toISOString(),
    updatedAt: client.updatedAt.toISOString(),
  };
}

/** The representation with the secret issued just now (create, rotate-secret): shown this once. */
export function withSecret(application: Application, clientSecret: string | null): OAuthApplicationWithSecret {
  return { ...applicationRepresentation(application), ...(clientSecret === null ? {} : { clientSecret }) };
}

/** `{origin}/api/admin/v1/oauth-applications/{clientId}`, the client_id percent-encoded as one path segment. */
export function applicationUrl(origin: string, clientId: string): string {
  return `${origin}${ADMIN_API_BASE_PATH}/oauth-applications/${encodeURIComponent(clientId)}`;
}
