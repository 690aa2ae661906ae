import { sessionCsrfToken, sessionCsrfTokenMatches } from '../../accounts/csrf.js';
import type { SignInSession } from '../../accounts/sessions.js';

/**
 * The CSRF token of every form on an authorize page: an HMAC of the authorization request's handle under the
 * session's secret (synchronizer token tied to the session, OWASP CSRF cheat sheet). A token works only with the
 * cookie of the session it was made for and only for that one request; signing in rotates the secret.
 */
export function csrfToken(session: SignInSession, handle: string): string {
  return sessionCsrfToken(session, `authorize-page:${handle}`);
}

export function csrfTokenMatches(session: SignInSession, handle: string, presented: string | undefined): boolean {
  return sessionCsrfTokenMatches(session, `authorize-page:${handle}`, presented);
}
