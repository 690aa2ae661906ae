import type { VariantProfile } from '../../variant.js';
import { CLIENT_ASSERTION_ALGORITHMS } from '../../clients/client-keys.js';
import { SIGNING_ALG } from '../../keys/signing-keys.js';

/**
 * What the authorization server supports, as advertised by the metadata documents; the endpoints that enforce these
 * values import them from here so the documents and the behaviour cannot drift apart.
 */

/** Authorization code only (spec, Authentication 1), answered in the query (RFC 6749 4.1.2). */
export const RESPONSE_TYPES = ['code'] as const;
export const RESPONSE_MODES = ['query'] as const;
/** RFC 6749 4.1 and 6 for applications people sign in to; 4.4 client_credentials for service clients only. */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
/** What a registered (public, member-facing) client may use: never client_credentials. */
export const REGISTRATION_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
/** Spec, Limits: PKCE S256 only. */
export const CODE_CHALLENGE_METHODS = ['S256'] as const;
/**
 * Spec, Authentication 2: public clients `none`; confidential clients `client_secret_post`, HTTP Basic
 * (`client_secret_basic`, RFC 6749 2.3.1) or a signed assertion (`private_key_jwt`, RFC 7523, OIDC Core 9).
 */
export const CLIENT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'] as const;
/** RFC 8414 2: the algorithms a private_key_jwt assertion may be signed with; never `none` or HMAC. */
export const CLIENT_AUTH_SIGNING_ALGS = CLIENT_ASSERTION_ALGORITHMS;
export const ID_TOKEN_SIGNING_ALGS = [SIGNING_ALG] as const;
/** OIDC Core 8: every member has one `sub`, the user id, at every client. */
export const SUBJECT_TYPES = ['public'] as const;
/** RFC 9449 5.1, RFC 9728 2: dpop_signing_alg_values_supported. */
export { DPOP_SIGNING_ALGS } from '../dpop/algorithms.js';
/** RFC 6750 2.1 only; no form-body or query-string tokens. */
export const BEARER_METHODS = ['header'] as const;

/**
 * Claims of the id_token and userinfo (spec: id_token claims, Userinfo response); `picture` only where the
 * deployment has the picture claim (the userinfo response carries it only there).
 */
export function claimsSupported(variant: VariantProfile): string[] {
  return [
    'iss',
    'aud',
    'exp',
    'iat',
    'auth_time',
    'nonce',
    // OIDC Back-Channel Logout 1.0 2.1: the sign-in session the id_token was issued in.
    'sid',
    'sub',
    'email',
    'name',
    ...(variant.pictureClaim ? ['picture'] : []),
    'org_id',
    'roles',
  ];
}
