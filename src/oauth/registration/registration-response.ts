import type { OAuthClient } from '../../clients/clients.js';
import { REGISTRATION_GRANT_TYPES, RESPONSE_TYPES } from '../discovery/supported.js';

/**
 * RFC 7591 3.2.1: the client information response for a matched vendor platform, as the operator registered it. A
 * vendor platform is a public client, so there is no `client_secret`.
 */
export function registrationResponse(clientName: string, client: OAuthClient): Record<string, unknown> {
  return {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    client_name: clientName,
    redirect_uris: client.redirectUris,
    grant_types: REGISTRATION_GRANT_TYPES,
    response_types: RESPONSE_TYPES,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    scope: client.scopes.join(' '),
  };
}
