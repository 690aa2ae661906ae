import type { SignInSession } from '../../accounts/sessions.js';
import * as browserSession from '../../http/browser-session.js';
import type { AuthorizeFlow } from './flow.js';

/**
 * The browser's sign-in session at this site, from the session cookie (docs/authorize.md); the cookie handling itself
 * is shared with the admin area (src/http/browser-session.ts). A cookie whose session belongs to another site is
 * ignored: sessions are looked up with the request's site.
 */
export async function findBrowserSession(flow: AuthorizeFlow): Promise<{ session: SignInSession; token: string } | null> {
  return browserSession.findBrowserSession(flow.ctx, flow.db, flow.site);
}

export function setSessionCookie(flow: AuthorizeFlow, token: string, session: SignInSession): void {
  browserSession.setBrowserSessionCookie(flow.ctx, flow.site, token, session);
  flow.session = session;
  flow.sessionToken = token;
}

/** A new anonymous session (its CSRF secret protects the sign-in form) with its cookie. */
export async function startBrowserSession(flow: AuthorizeFlow): Promise<SignInSession> {
  const { token, session } = await browserSession.startBrowserSession(flow.ctx, flow.db, flow.site);
  flow.session = session;
  flow.sessionToken = token;
  return session;
}
