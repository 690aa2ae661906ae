import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../shared/random.js';
import type { SignInSession } from './sessions.js';

/**
 * Synchronizer CSRF tokens tied to the sign-in session (OWASP CSRF cheat sheet): an HMAC-SHA256 of what the form is
 * for, keyed with the session's CSRF secret. A token works only with the cookie of the session it was made for and
 * only for that purpose; signing in rotates the secret, so tokens of the anonymous session stop working.
 */
export function sessionCsrfToken(session: SignInSession, purpose: string): string {
  return createHmac('sha256', session.csrfSecret).update(purpose).digest('base64url');
}

export function sessionCsrfTokenMatches(session: SignInSession, purpose: string, presented: string | undefined): boolean {
  return presented !== undefined && constantTimeEqual(presented, sessionCsrfToken(session, purpose));
}
