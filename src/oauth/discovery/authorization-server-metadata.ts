import type { VariantProfile } from '../../variant.js';
import { ALL_SCOPES } from '../../clients/scopes.js';
import type { Site } from '../../sites/sites.js';
import { OAUTH_PATHS, siteUrl } from '../endpoints.js';
import {
  CLIENT_AUTH_METHODS,
  CLIENT_AUTH_SIGNING_ALGS,
  CODE_CHALLENGE_METHODS,
  DPOP_SIGNING_ALGS,
  GRANT_TYPES,
  ID_TOKEN_SIGNING_ALGS,
  RESPONSE_MODES,
  RESPONSE_TYPES,
  SUBJECT_TYPES,
  claimsSupported,
} from './supported.js';

export type AuthorizationServerMetadata = Record<string, string | boolean | readonly string[]>;

/** Where the deployment serves it (spec, Authentication 10): RFC 7662 introspection, authenticated like the token endpoint. */
function introspection(origin: string, variant: VariantProfile): AuthorizationServerMetadata {
  if (!variant.introspection) return {};
  return {
    introspection_endpoint: siteUrl(origin, OAUTH_PATHS.introspect),
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_signing_alg_values_supported: CLIENT_AUTH_SIGNING_ALGS,
  };
}

/**
 * RFC 8414 2: the authorization server metadata of one site, the source of truth (spec, Endpoints). The issuer is
 * the site's origin `{base_url}` exactly (RFC 8414 3.3), so each origin is its own authorization server.
 */
export function authorizationServerMetadata(site: Site, variant: VariantProfile): AuthorizationServerMetadata {
  const origin = site.origin;
  // Object.assign keeps the fields in this order; a spread followed by the rest would cost about a microsecond per
  // field on Node 20 (docs/performance.md, "Object spreads on Node 20").
  const endpoints = {
    issuer: origin,
    authorization_endpoint: siteUrl(origin, OAUTH_PATHS.authorize),
    token_endpoint: siteUrl(origin, OAUTH_PATHS.token),
    userinfo_endpoint: siteUrl(origin, OAUTH_PATHS.userinfo),
    revocation_endpoint: siteUrl(origin, OAUTH_PATHS.revoke),
    registration_endpoint: siteUrl(origin, OAUTH_PATHS.register),
  };
  return Object.assign(endpoints, introspection(origin, variant), {
    jwks_uri: siteUrl(origin, OAUTH_PATHS.jwks),
    // The full Scopes table of the spec, member and operator scopes alike; each client holds a subset.
    scopes_supported: ALL_SCOPES,
    response_types_supported: RESPONSE_TYPES,
    response_modes_supported: RESPONSE_MODES,
    grant_types_supported: GRANT_TYPES,
    code_challenge_methods_supported: CODE_CHALLENGE_METHODS,
    // One authenticator serves the token, revocation and introspection endpoints, so all three list the same methods.
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    token_endpoint_auth_signing_alg_values_supported: CLIENT_AUTH_SIGNING_ALGS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_signing_alg_values_supported: CLIENT_AUTH_SIGNING_ALGS,
    // RFC 9449 5.1: DPoP proofs are accepted at the token endpoint with these algorithms.
    dpop_signing_alg_values_supported: DPOP_SIGNING_ALGS,
    // draft-ietf-oauth-client-id-metadata-document: an https client_id is fetched as the client's metadata.
    client_id_metadata_document_supported: true,
    // RFC 9207 3: the authorization response carries `iss`.
    authorization_response_iss_parameter_supported: true,
    // Both present, so clients may rely on the id_token (spec, Token response and Authentication 12).
    id_token_signing_alg_values_supported: ID_TOKEN_SIGNING_ALGS,
    subject_types_supported: SUBJECT_TYPES,
    claims_supported: claimsSupported(variant),
    // OIDC RP-Initiated Logout 1.0 2.1 and Back-Channel Logout 1.0 2.1 (logout tokens carry sid as well as sub).
    end_session_endpoint: siteUrl(origin, OAUTH_PATHS.endSession),
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    service_documentation: siteUrl(origin, '/auth.md'),
  });
}
