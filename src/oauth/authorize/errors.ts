import { AppError } from '../../shared/errors.js';

/**
 * A problem shown to the person in the browser as an HTML page and never sent to the client: RFC 6749 4.1.2.1 forbids
 * redirecting while the client or its redirect_uri is unverified, and a bad form post (CSRF, expired page) is the
 * browser's business, not the client's.
 */
export class PageError extends AppError {
  readonly title: string;
  constructor(status: number, code: string, title: string, message: string, headers: Record<string, string> = {}) {
    super(status, code, message, headers);
    this.title = title;
  }
}

/** Unknown client, unregistered or missing redirect_uri: RFC 6749 4.1.2.1, "MUST NOT automatically redirect". */
export class UntrustedRequestError extends PageError {
  constructor(message: string) {
    super(400, 'invalid_request', 'This sign-in link is not valid', message);
  }
}

/** A form post without the session cookie or with a missing or wrong CSRF token. */
export class CsrfError extends PageError {
  constructor(message: string) {
    super(403, 'csrf_check_failed', 'This page has expired', message);
  }
}

/** The authorization request behind a page is unknown, expired, or already finished (single use). */
export class RequestGoneError extends PageError {
  constructor(message: string) {
    super(400, 'request_expired', 'This authorization is over', message);
  }
}

/** Too many authorization requests from this address or for this application (docs/oauth.md). */
export class TooManyRequestsPageError extends PageError {
  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, 'too_many_requests', 'Too many sign-in requests', `There were too many sign-in requests from your network or for this application. Wait ${seconds} seconds and try again.`, {
      'Retry-After': String(seconds),
    });
  }
}

export class TooManyAttemptsError extends PageError {
  constructor(retryAfterSeconds: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
    super(
      429,
      'too_many_attempts',
      'Too many sign-in attempts',
      `There were too many unsuccessful sign-in attempts. Wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`,
      { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    );
  }
}
