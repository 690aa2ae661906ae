import type { Site } from '../../sites/sites.js';
import type { VariantProfile } from '../../variant.js';
import { authorizationServerMetadata, type AuthorizationServerMetadata } from './authorization-server-metadata.js';

/**
 * OpenID Connect Discovery 1.0 section 3: the same data as the RFC 8414 document (which already holds every field
 * OIDC marks REQUIRED: issuer, authorization_endpoint, token_endpoint, jwks_uri, response_types_supported,
 * subject_types_supported, id_token_signing_alg_values_supported), plus the OIDC parameters whose defaults would
 * otherwise claim support we do not have (`request_uri_parameter_supported` defaults to true).
 */
export function openidConfiguration(site: Site, variant: VariantProfile): AuthorizationServerMetadata {
  return Object.assign(authorizationServerMetadata(site, variant), {
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  });
}
