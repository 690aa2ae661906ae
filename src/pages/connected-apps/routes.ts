import Router from '@koa/router';
import { sessionCsrfToken, sessionCsrfTokenMatches } from '../../accounts/csrf.js';
import { isSignedIn, signInOnSession, type SignInSession } from '../../accounts/sessions.js';
import { signInWithPassword } from '../../accounts/sign-in.js';
import { getUserAt } from '../../accounts/users.js';
import { disconnectApp, listMemberConnectedApps } from '../../clients/connected-apps.js';
import type { Database } from '../../db/connection.js';
import { acceptBody, DEFAULT_BODY_LIMIT } from '../../http/body.js';
import { findBrowserSession, setBrowserSessionCookie, startBrowserSession } from '../../http/browser-session.js';
import { toAppError } from '../../http/errors.js';
import { setPageSecurityHeaders } from '../../http/security-headers.js';
import type { SiteContext, SiteState } from '../../http/state.js';
import { PageError, TooManyAttemptsError } from '../../oauth/authorize/errors.js';
import { SIGN_IN_FAILED_MESSAGE } from '../../oauth/authorize/sign-in-endpoint.js';
import { readForm } from '../../oauth/parameters.js';
import type { Services } from '../../services.js';
import { ValidationError } from '../../shared/errors.js';
import { CONNECTED_APPS_PATHS } from './paths.js';
import { connectedAppsErrorPage, connectedAppsPage, connectedAppsSignInPage } from './view.js';
import { logFailure } from '../../shared/failure-log.js';

/**
 * The member's connected apps at a site (docs/connected-apps.md): GET lists every application holding a live grant
 * for the signed-in member, each with a Disconnect button; signing in happens here when needed (the same browser
 * session as the authorize pages and the admin area, src/http/browser-session.ts). Every form carries a synchronizer
 * CSRF token of the session (OWASP CSRF cheat sheet); a grant id of anyone else answers 404 and changes nothing.
 */

/** CSRF purposes: the sign-in form (anonymous session) and the Disconnect buttons (signed-in session). */
const SIGN_IN_CSRF = 'connected-apps:sign-in';
const LIST_CSRF = 'connected-apps:list';

const PAGE_SIZE = 50;

const DISCONNECTED = 'The application was disconnected: its access has ended.';

function sendPage(ctx: SiteContext, status: number, body: string, headers: Readonly<Record<string, string>> = {}): void {
  setPageSecurityHeaders(ctx);
  ctx.set(headers);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

/** 303 See Other back to the list (after a form post). */
function backToList(ctx: SiteContext, query = ''): void {
  setPageSecurityHeaders(ctx);
  const location = `${CONNECTED_APPS_PATHS.list}${query}`;
  ctx.status = 303;
  ctx.set('Location', location);
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = `See ${location}`;
}

function csrfFailure(): PageError {
  return new PageError(403, 'csrf_check_failed', 'This page has expired', 'The form could not be verified (its security token is missing or belongs to another session). Open your connected apps again and repeat the step.');
}

function sendError(ctx: SiteContext, raw: unknown): void {
  const error = toAppError(raw);
  if (error.status >= 500) logFailure(ctx.state.log, raw, 'connected apps page failed');
  const title = error instanceof PageError ? error.title : error.status === 404 ? 'Not found' : error.status >= 500 ? 'Something went wrong' : 'This cannot be done';
  const message = error.status >= 500 && error.status !== 503 ? 'The server could not complete this step. Try again in a moment.' : error.message;
  sendPage(ctx, error.status, connectedAppsErrorPage(ctx.state.site, title, message), error.headers);
}

async function showSignIn(ctx: SiteContext, db: Database, options: { status?: number; email?: string; error?: string; session?: SignInSession | null }): Promise<void> {
  const site = ctx.state.site;
  const session = options.session ?? (await startBrowserSession(ctx, db, site)).session;
  sendPage(ctx, options.status ?? 200, connectedAppsSignInPage({ site, csrfToken: sessionCsrfToken(session, SIGN_IN_CSRF), email: options.email ?? null, error: options.error ?? null }));
}

export function connectedAppsRoutes(services: Services): Router<SiteState> {
  const { db } = services;
  const router = new Router<SiteState>();

  router.get(CONNECTED_APPS_PATHS.list, async (ctx) => {
    try {
      const site = ctx.state.site;
      const found = await findBrowserSession(ctx, db, site);
      const session = found?.session ?? null;
      if (!isSignedIn(session)) {
        await showSignIn(ctx, db, { session });
        return;
      }
      const user = await getUserAt(db, site.id, session.userId);
      const cursor = typeof ctx.query.after === 'string' ? ctx.query.after : undefined;
      const { apps, nextCursor } = await listMemberConnectedApps(db, site.id, user.id, { limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) }).catch((error: unknown) => {
        // A stale or mangled "More applications" link starts again from the first page.
        if (!(error instanceof ValidationError && error.code === 'invalid_cursor')) throw error;
        return listMemberConnectedApps(db, site.id, user.id, { limit: PAGE_SIZE });
      });
      const nextPage = nextCursor === null ? null : `${CONNECTED_APPS_PATHS.list}?after=${encodeURIComponent(nextCursor)}`;
      const ok = ctx.query.disconnected === '1' ? DISCONNECTED : null;
      sendPage(ctx, 200, connectedAppsPage({ site, user, apps, nextPage, csrfToken: sessionCsrfToken(session, LIST_CSRF), ok }));
    } catch (error) {
      sendError(ctx, error);
    }
  });

  router.post(CONNECTED_APPS_PATHS.signIn, acceptBody({ form: DEFAULT_BODY_LIMIT }), async (ctx) => {
    try {
      const site = ctx.state.site;
      const form = readForm(ctx);
      const found = await findBrowserSession(ctx, db, site);
      if (!found || !sessionCsrfTokenMatches(found.session, SIGN_IN_CSRF, form.get('csrf_token'))) throw csrfFailure();
      const email = (form.get('email') ?? '').trim();
      const password = form.get('password') ?? '';
      if (email === '' || password === '') {
        await showSignIn(ctx, db, { status: 400, email, error: 'Enter your email and password.', session: found.session });
        return;
      }
      const outcome = await signInWithPassword(db, { siteId: site.id, email, password, clientAddress: ctx.ip });
      if (outcome.kind === 'rate_limited') throw new TooManyAttemptsError(outcome.retryAfterSeconds);
      if (outcome.kind === 'invalid_credentials') {
        ctx.state.log.info({ event: 'sign_in_failed' }, 'sign-in failed');
        await showSignIn(ctx, db, { status: 400, email, error: SIGN_IN_FAILED_MESSAGE, session: found.session });
        return;
      }
      const signedIn = await signInOnSession(db, found.session, found.token, outcome.user.id);
      if (!signedIn) throw csrfFailure();
      setBrowserSessionCookie(ctx, site, signedIn.token, signedIn.session);
      ctx.state.log.info({ event: 'signed_in', userId: outcome.user.id }, 'signed in');
      backToList(ctx);
    } catch (error) {
      sendError(ctx, error);
    }
  });

  router.post(CONNECTED_APPS_PATHS.disconnect, acceptBody({ form: DEFAULT_BODY_LIMIT }), async (ctx) => {
    try {
      const site = ctx.state.site;
      const form = readForm(ctx);
      const found = await findBrowserSession(ctx, db, site);
      const session = found?.session ?? null;
      if (!session || !sessionCsrfTokenMatches(session, LIST_CSRF, form.get('csrf_token'))) throw csrfFailure();
      if (!isSignedIn(session)) throw new PageError(403, 'sign_in_required', 'Sign in again', 'You are no longer signed in. Open your connected apps, sign in, then disconnect the application again.');
      const grantId = form.get('grant_id');
      if (grantId === undefined) throw new PageError(400, 'invalid_request', 'This form cannot be read', 'The form does not say which application to disconnect.');
      // Scoped to the signed-in member and this site: anyone else's grant is not found and stays as it is.
      const app = await disconnectApp(db, site, grantId, { userId: session.userId });
      ctx.state.log.info({ event: 'connected_app_disconnected', userId: session.userId, clientRef: app.client.ref }, 'connected app disconnected by the member');
      backToList(ctx, '?disconnected=1');
    } catch (error) {
      sendError(ctx, error);
    }
  });

  return router;
}
