import { AppError } from '../shared/errors.js';

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

/** RFC 6749 5.2: 401 when the client tried to authenticate (with a WWW-Authenticate only for the HTTP Basic scheme, which we do not offer). */
export class InvalidClientError extends OAuthError {
  constructor(description: string) {
    super(401, 'invalid_client', description);
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

export class ServerError extends OAuthError {
  constructor(description: string) {
    super(500, 'server_error', description);
  }
}
