import { findLiveSession, startAnonymousSession, type SignInSession } from '../../accounts/sessions.js';
import { appendSetCookie, readSessionCookies, sessionCookie } from '../../http/cookies.js';
import type { AuthorizeFlow } from './flow.js';

/**
 * The browser's sign-in session at this site, from the session cookie (docs/authorize.md). A cookie whose session
 * belongs to another site is ignored: sessions are looked up with the request's site.
 */
export async function findBrowserSession(flow: AuthorizeFlow): Promise<{ session: SignInSession; token: string } | null> {
  for (const token of readSessionCookies(flow.ctx, flow.site.origin)) {
    const session = await findLiveSession(flow.db, flow.site.id, token);
    if (session) return { session, token };
  }
  return null;
}

export function setSessionCookie(flow: AuthorizeFlow, token: string, session: SignInSession): void {
  const maxAgeSeconds = Math.max(1, Math.round((session.expiresAt.getTime() - Date.now()) / 1000));
  appendSetCookie(flow.ctx, sessionCookie(flow.site.origin, token, maxAgeSeconds));
  flow.session = session;
  flow.sessionToken = token;
}

/** A new anonymous session (its CSRF secret protects the sign-in form) with its cookie. */
export async function startBrowserSession(flow: AuthorizeFlow): Promise<SignInSession> {
  const { token, session } = await startAnonymousSession(flow.db, flow.site.id, flow.ctx.get('user-agent') || undefined);
  setSessionCookie(flow, token, session);
  return session;
}
