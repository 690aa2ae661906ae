import type { components } from '../../../../generated/admin-api.js';
import type { Application } from '../../../clients/applications.js';
import type { ClientSettingsInput } from '../../../clients/client-settings.js';
import { ADMIN_API_BASE_PATH } from '../../contract.js';

export type OAuthApplication = components['schemas']['OAuthApplication'];
export type OAuthApplicationWithSecret = components['schemas']['OAuthApplicationWithSecret'];
type SettingsBody = Pick<components['schemas']['OAuthApplicationUpdate'], 'tokenEndpointAuthMethod' | 'jwks' | 'jwksUri' | 'dpopBoundAccessTokens' | 'postLogoutRedirectUris' | 'backchannelLogoutUri'>;

export function applicationRepresentation({ client, vendorClientName, createdBy }: Application): OAuthApplication {
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
    jwks: client.jwks as OAuthApplication['jwks'],
    jwksUri: client.jwksUri,
    dpopBoundAccessTokens: client.dpopBoundAccessTokens,
    postLogoutRedirectUris: client.postLogoutRedirectUris,
    backchannelLogoutUri: client.backchannelLogoutUri,
    createdBy,
    createdAt: client.createdAt.toISOString(),
    updatedAt: client.updatedAt.toISOString(),
  };
}

/** The authentication and logout settings a create or update body gives (absent members stay undefined). */
export function settingsFromBody(body: SettingsBody): ClientSettingsInput {
  const settings: ClientSettingsInput = {};
  if (body.tokenEndpointAuthMethod !== undefined) settings.tokenEndpointAuthMethod = body.tokenEndpointAuthMethod;
  if (body.jwks !== undefined) settings.jwks = body.jwks;
  if (body.jwksUri !== undefined) settings.jwksUri = body.jwksUri;
  if (body.dpopBoundAccessTokens !== undefined) settings.dpopBoundAccessTokens = body.dpopBoundAccessTokens;
  if (body.postLogoutRedirectUris !== undefined) settings.postLogoutRedirectUris = body.postLogoutRedirectUris;
  if (body.backchannelLogoutUri !== undefined) settings.backchannelLogoutUri = body.backchannelLogoutUri;
  return settings;
}

/** The representation with the secret issued just now (create, rotate-secret): shown this once. */
export function withSecret(application: Application, clientSecret: string | null): OAuthApplicationWithSecret {
  return { ...applicationRepresentation(application), ...(clientSecret === null ? {} : { clientSecret }) };
}

/** `{origin}/api/admin/v1/oauth-applications/{clientId}`, the client_id percent-encoded as one path segment. */
export function applicationUrl(origin: string, clientId: string): string {
  return `${origin}${ADMIN_API_BASE_PATH}/oauth-applications/${encodeURIComponent(clientId)}`;
}
