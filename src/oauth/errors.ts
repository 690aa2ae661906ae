import { AppError } from '../shared/errors.js';
import { DPOP_SIGNING_ALGS } from './dpop/algorithms.js';
import { OAUTH_PATHS } from './endpoints.js';

/** An RFC 6749 5.2 error: `{ error, error_description }` with `Cache-Control: no-store`. */
export class OAuthError extends AppError {
  constructor(status: number, errorCode: string, description: string, headers: Record<string, string> = {}) {
    super(status, errorCode, description, headers);
  }
}

export class InvalidRequestError extends OAuthError {
  constructor(description: string) {
    super(400, 'invalid_request', description);
  }
}

/** RFC 6749 5.2: 401; `headers` carries `WWW-Authenticate: Basic` when the client tried HTTP Basic. */
export class InvalidClientError extends OAuthError {
  constructor(description: string, headers: Record<string, string> = {}) {
    super(401, 'invalid_client', description, headers);
  }
}

export class InvalidGrantError extends OAuthError {
  constructor(description: string) {
    super(400, 'invalid_grant', description);
  }
}

export class UnauthorizedClientError extends OAuthError {
  constructor(description: string, status = 400) {
    super(status, 'unauthorized_client', description);
  }
}

export class UnsupportedGrantTypeError extends OAuthError {
  constructor(description: string) {
    super(400, 'unsupported_grant_type', description);
  }
}

export class InvalidScopeError extends OAuthError {
  constructor(description: string) {
    super(400, 'invalid_scope', description);
  }
}

export class InvalidTargetError extends OAuthError {
  constructor(description: string) {
    super(400, 'invalid_target', description);
  }
}

export class InvalidClientMetadataError extends OAuthError {
  constructor(description: string) {
    super(400, 'invalid_client_metadata', description);
  }
}

export class UnsupportedTokenTypeError extends OAuthError {
  constructor(description: string) {
    super(400, 'unsupported_token_type', description);
  }
}

export class AccessDeniedError extends OAuthError {
  constructor(description: string) {
    super(403, 'access_denied', description);
  }
}

// Errors returned to the client on its redirect_uri (RFC 6749 4.1.2.1; OpenID Connect Core 3.1.2.6 and 6).

export class UnsupportedResponseTypeError extends OAuthError {
  constructor(description: string) {
    super(400, 'unsupported_response_type', description);
  }
}

export class ConsentRequiredError extends OAuthError {
  constructor(description: string) {
    super(400, 'consent_required', description);
  }
}

export class RequestNotSupportedError extends OAuthError {
  constructor(description: string) {
    super(400, 'request_not_supported', description);
  }
}

export class RequestUriNotSupportedError extends OAuthError {
  constructor(description: string) {
    super(400, 'request_uri_not_supported', description);
  }
}

export class ServerError extends OAuthError {
  constructor(description: string) {
    super(500, 'server_error', description);
  }
}

/**
 * A value fit for a quoted auth-param of a Bearer challenge. RFC 6750 3 limits `error`, `error_description` and `scope`
 * to %x20-21 / %x23-5B / %x5D-7E (printable ASCII without '"' and '\'), which is also valid quoted-string content
 * (RFC 9110 5.6.4) for `realm` and the other auth-params, so every value gets this one charset. Descriptions can carry
 * operator-controlled text (a site's name): Node refuses CR, LF and characters above U+00FF in a header, and would turn
 * the 401/403 into a 500. So accents are dropped (NFKD: "É" → "E"), whitespace such as CR/LF/TAB becomes a space,
 * '"' becomes "'", '\' becomes '/', and anything else outside the charset becomes '?'. Never throws.
 */
export function challengeParamValue(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/\s/gu, ' ')
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/gu, '?');
}

function challengeOf(params: Record<string, string>, scheme: 'Bearer' | 'DPoP' = 'Bearer'): string {
  return `${scheme} ${Object.entries(params)
    .map(([name, value]) => `${name}="${challengeParamValue(value)}"`)
    .join(', ')}`;
}

/** RFC 6750 3: the challenge a protected resource sends, pointing at its RFC 9728 metadata. */
export function bearerChallenge(origin: string, error: string, description: string, extra: Record<string, string> = {}): string {
  return challengeOf({ realm: origin, error, error_description: description, ...extra, resource_metadata: `${origin}${OAUTH_PATHS.protectedResourceMetadata}` });
}

/** RFC 6750 3.1: the challenge for a request that carried no credentials: no error code, still the resource metadata. */
export function missingTokenChallenge(origin: string, extra: Record<string, string> = {}): string {
  return challengeOf({ realm: origin, resource_metadata: `${origin}${OAUTH_PATHS.protectedResourceMetadata}`, ...extra });
}

/** RFC 9449 7.1: the DPoP challenge, with the proof algorithms we accept (`algs`) and the resource metadata. */
export function dpopChallenge(origin: string, error: string, description: string): string {
  return challengeOf({ realm: origin, error, error_description: description, algs: DPOP_SIGNING_ALGS.join(' '), resource_metadata: `${origin}${OAUTH_PATHS.protectedResourceMetadata}` }, 'DPoP');
}

/**
 * 401 for a missing, malformed, unknown, expired, revoked or other-origin token (spec: Errors); a token sent with the
 * DPoP scheme, or a DPoP-bound token, is challenged with the DPoP scheme (RFC 9449 7.1).
 */
export class InvalidTokenError extends OAuthError {
  constructor(origin: string, description: string, scheme: 'Bearer' | 'DPoP' = 'Bearer') {
    super(401, 'invalid_token', description, { 'WWW-Authenticate': scheme === 'DPoP' ? dpopChallenge(origin, 'invalid_token', description) : bearerChallenge(origin, 'invalid_token', description) });
  }
}

/** RFC 9449 7.1, 9: 401 at a protected resource for a missing or invalid DPoP proof, or one without the current nonce. */
export class DpopProofChallengeError extends OAuthError {
  constructor(origin: string, errorCode: 'invalid_dpop_proof' | 'use_dpop_nonce', description: string, nonce?: string) {
    super(401, errorCode, description, { 'WWW-Authenticate': dpopChallenge(origin, errorCode, description), ...(nonce === undefined ? {} : { 'DPoP-Nonce': nonce }) });
  }
}

/** RFC 9449 5, 12.2: the token request's DPoP proof is missing where one is required, or not valid. */
export class InvalidDpopProofError extends OAuthError {
  constructor(description: string) {
    super(400, 'invalid_dpop_proof', description);
  }
}

/** RFC 9449 8: the token endpoint wants a proof carrying the nonce of the DPoP-Nonce header. */
export class UseDpopNonceError extends OAuthError {
  constructor(description: string, nonce: string) {
    super(400, 'use_dpop_nonce', description, { 'DPoP-Nonce': nonce });
  }
}

/** 403 for a valid token without the scope an endpoint needs (RFC 6750 3.1). */
export class InsufficientScopeError extends OAuthError {
  readonly requiredScopes: readonly string[];
  constructor(origin: string, requiredScopes: readonly string[], description = `this request needs the scope ${requiredScopes.join(' or ')}`) {
    super(403, 'insufficient_scope', description, { 'WWW-Authenticate': bearerChallenge(origin, 'insufficient_scope', description, { scope: requiredScopes.join(' ') }) });
    this.requiredScopes = requiredScopes;
  }
}
