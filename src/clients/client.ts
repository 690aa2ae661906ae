import type { TokenEndpointAuthMethod } from './auth-methods.js';
import type { Audience, Scope } from './scopes.js';

/** `service`: a confidential operator client that acts as itself with client_credentials (RFC 6749 4.4), never for a person. */
export type ClientKind = 'operator_created' | 'vendor_platform' | 'metadata_document' | 'service';

/** A JWK Set as a client registers it (RFC 7517 5); its keys are checked when they are registered. */
export interface ClientJwks {
  keys: Array<Record<string, unknown>>;
}

export interface OAuthClient {
  /** Row id, used by foreign keys. */
  ref: number;
  siteId: number;
  clientId: string;
  name: string;
  audience: Audience;
  confidential: boolean;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  redirectUris: string[];
  scopes: Scope[];
  kind: ClientKind;
  reviewed: boolean;
  /** private_key_jwt keys (RFC 7523), registered inline; at most one of `jwks` and `jwksUri` is set. */
  jwks: ClientJwks | null;
  jwksUri: string | null;
  /** RFC 9449 5.2: every access token of this client must be DPoP-bound. */
  dpopBoundAccessTokens: boolean;
  /** OIDC RP-Initiated Logout 1.0 3.1: where the end_session endpoint may send the member back to. */
  postLogoutRedirectUris: string[];
  /** OIDC Back-Channel Logout 1.0 2.2: where logout tokens are POSTed. */
  backchannelLogoutUri: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}
