import { requireDate, toDate, type Database } from '../db/connection.js';
import { randomToken, sha256Hex } from '../shared/random.js';

/**
 * The browser session behind the sign-in and consent pages (table `sign_in_sessions`). The cookie carries a random
 * token (256 bits); the row stores only its SHA-256, so a database leak cannot be replayed as a cookie. Every row
 * belongs to one site: a token is looked up together with the site of the request, so a session of one school never
 * signs anyone in at another (docs/authorize.md).
 *
 * A session starts anonymous (no user) when the sign-in page is first shown: its CSRF secret protects the sign-in
 * form. Signing in rotates the token and the CSRF secret (no session fixation) and records the user and the time of
 * authentication, which becomes `auth_time` of the codes issued in it.
 */

/** An anonymous session only has to outlive filling in the sign-in form. */
export const ANONYMOUS_SESSION_TTL_SECONDS = 60 * 60;
/** Not shown in the spec: a signed-in session lasts 12 hours; after that the user signs in again. */
export const SIGNED_IN_SESSION_TTL_SECONDS = 12 * 60 * 60;

export interface SignInSession {
  id: number;
  siteId: number;
  /** Null while anonymous. */
  userId: number | null;
  csrfSecret: string;
  authenticatedAt: Date | null;
  expiresAt: Date;
  /**
   * The public session id id_tokens and logout tokens carry (OIDC Back-Channel Logout 1.0 2.1 `sid`); set at each
   * sign-in, null while anonymous. Unlike the cookie token it is no secret: it only names the session.
   */
  sid: string | null;
}

export interface SignedInSession extends SignInSession {
  userId: number;
  authenticatedAt: Date;
}

interface SessionRow {
  id: number;
  site_id: number;
  token_hash: string;
  revoked_at: unknown;
  user_id: number | null;
  csrf_secret: string;
  authenticated_at: unknown;
  expires_at: unknown;
  sid: string | null;
}

function sessionFromRow(row: SessionRow): SignInSession {
  return {
    id: row.id,
    siteId: row.site_id,
    userId: row.user_id,
    csrfSecret: row.csrf_secret,
    authenticatedAt: toDate(row.authenticated_at),
    expiresAt: requireDate(row.expires_at),
    sid: row.sid ?? null,
  };
}

export function isSignedIn(session: SignInSession | null | undefined): session is SignedInSession {
  return session !== null && session !== undefined && session.userId !== null && session.authenticatedAt !== null;
}

function newSessionToken(): string {
  return `sgss_${randomToken(32)}`;
}

function clip(value: string | undefined, length: number): string | null {
  return value ? value.slice(0, length) : null;
}

/** Starts an anonymous session at a site; returns the cookie token (shown once) and the session. */
export async function startAnonymousSession(db: Database, siteId: number, userAgent?: string): Promise<{ token: string; session: SignInSession }> {
  const token = newSessionToken();
  const now = new Date();
  const [id] = await db('sign_in_sessions').insert({
    site_id: siteId,
    user_id: null,
    token_hash: sha256Hex(token),
    csrf_secret: randomToken(32),
    authenticated_at: null,
    expires_at: new Date(now.getTime() + ANONYMOUS_SESSION_TTL_SECONDS * 1000),
    revoked_at: null,
    user_agent: clip(userAgent, 512),
    created_at: now,
    updated_at: now,
  });
  const session = await findSessionById(db, Number(id));
  if (!session) throw new Error('the new sign-in session vanished');
  return { token, session };
}

async function findSessionById(db: Database, id: number): Promise<SignInSession | null> {
  const row = await db<SessionRow>('sign_in_sessions').where({ id }).first();
  return row ? sessionFromRow(row) : null;
}

/** The live (unexpired, unrevoked) session of this site that a cookie token names, or null. */
export async function findLiveSession(db: Database, siteId: number, token: string, now: Date = new Date()): Promise<SignInSession | null> {
  const row = await db<SessionRow>('sign_in_sessions')
    .where({ token_hash: sha256Hex(token), site_id: siteId })
    .whereNull('revoked_at')
    .andWhere('expires_at', '>', now)
    .first();
  return row ? sessionFromRow(row) : null;
}

/**
 * Signs the user in on this session: a fresh token and CSRF secret replace the old ones (the anonymous token, which
 * an attacker may have planted, stops working), and the session lives SIGNED_IN_SESSION_TTL_SECONDS from now.
 * Returns null when the session was changed or ended meanwhile (a concurrent sign-in on the same cookie).
 */
export async function signInOnSession(db: Database, session: SignInSession, previousToken: string, userId: number): Promise<{ token: string; session: SignedInSession } | null> {
  const token = newSessionToken();
  const now = new Date();
  const updated = await db('sign_in_sessions')
    .where({ id: session.id, token_hash: sha256Hex(previousToken) })
    .whereNull('revoked_at')
    .update({
      user_id: userId,
      token_hash: sha256Hex(token),
      csrf_secret: randomToken(32),
      authenticated_at: now,
      // A new sid per sign-in: logout tokens for the previous sign-in never end this one.
      sid: randomToken(16),
      expires_at: new Date(now.getTime() + SIGNED_IN_SESSION_TTL_SECONDS * 1000),
      updated_at: now,
    });
  if (updated === 0) return null;
  const fresh = await findSessionById(db, session.id);
  return isSignedIn(fresh) ? { token, session: fresh } : null;
}

// A session ends through signOutSession (src/oauth/logout/sign-out.ts), which also tells the applications it approved.
