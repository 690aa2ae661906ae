import type { ParameterizedContext } from 'koa';
import { findLiveSession, startAnonymousSession, type SignInSession } from '../accounts/sessions.js';
import type { Database } from '../db/connection.js';
import type { Site } from '../sites/sites.js';
import { appendSetCookie, readSessionCookies, sessionCookie } from './cookies.js';

/**
 * The browser's sign-in session at a site, carried by the session cookie (docs/authorize.md, Session and cookie). One
 * session serves every server-rendered area of the site: the authorize pages and the admin area. A cookie whose
 * session belongs to another site is ignored: sessions are looked up with the request's site.
 */
export async function findBrowserSession(ctx: ParameterizedContext, db: Database, site: Site): Promise<{ session: SignInSession; token: string } | null> {
  for (const token of readSessionCookies(ctx, site.origin)) {
    const session = await findLiveSession(db, site.id, token);
    if (session) return { session, token };
  }
  return null;
}

/** Sets the session cookie for `token`, living as long as the session. */
export function setBrowserSessionCookie(ctx: ParameterizedContext, site: Site, token: string, session: SignInSession): void {
  const maxAgeSeconds = Math.max(1, Math.round((session.expiresAt.getTime() - Date.now()) / 1000));
  appendSetCookie(ctx, sessionCookie(site.origin, token, maxAgeSeconds));
}

/** A new anonymous session (its CSRF secret protects the sign-in form) with its cookie. */
export async function startBrowserSession(ctx: ParameterizedContext, db: Database, site: Site): Promise<{ session: SignInSession; token: string }> {
  const { token, session } = await startAnonymousSession(db, site.id, ctx.get('user-agent') || undefined);
  setBrowserSessionCookie(ctx, site, token, session);
  return { session, token };
}
