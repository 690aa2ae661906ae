import type { Middleware } from 'koa';
import { sessionCsrfToken, sessionCsrfTokenMatches } from '../../accounts/csrf.js';
import { OPERATOR_ROLES, rolesAt, type Role } from '../../accounts/roles.js';
import { isSignedIn, type SignedInSession, type SignInSession } from '../../accounts/sessions.js';
import { getUserAt, type User } from '../../accounts/users.js';
import type { Database } from '../../db/connection.js';
import { bodyText, DEFAULT_BODY_LIMIT, parseFormFields, readBodyBytes, readFailureError } from '../../http/body.js';
import { findBrowserSession, startBrowserSession } from '../../http/browser-session.js';
import { toAppError } from '../../http/errors.js';
import { setPageSecurityHeaders } from '../../http/security-headers.js';
import type { SiteContext, SiteState } from '../../http/state.js';
import { PageError } from '../../oauth/authorize/errors.js';
import type { Site } from '../../sites/sites.js';
import { errorPageHtml, type AdminChrome } from './views/layout.js';
import { adminSignInPage } from './views/sign-in.js';
import { logFailure } from '../../shared/failure-log.js';

/**
 * What every admin page shares: the browser's sign-in session (the same cookie and rows as the authorize pages,
 * src/http/browser-session.ts), an operator check on every request (owner, operator or staff of this site, read
 * fresh so a removed role takes effect at once), synchronizer CSRF tokens on every form, the authorize pages'
 * security headers, and HTML error pages.
 */

/** CSRF purposes: the sign-in form (anonymous or other session) and every form of a signed-in operator. */
export const SIGN_IN_CSRF = 'admin:sign-in';
export const AREA_CSRF = 'admin:area';

export interface AdminPageContext {
  ctx: SiteContext;
  db: Database;
  site: Site;
  session: SignedInSession;
  user: User;
  roles: Role[];
  chrome: AdminChrome;
  /** The posted form (POST only). */
  form: URLSearchParams;
}

export function isOperator(roles: readonly Role[]): boolean {
  return roles.some((role) => OPERATOR_ROLES.includes(role));
}

export function chromeFor(site: Site, user: User | null, session: SignInSession | null): AdminChrome {
  return { site, user, csrfToken: user && session ? sessionCsrfToken(session, AREA_CSRF) : null, developersVisible: user !== null && site.mcpConnectionsEnabled };
}

/** Answers with an HTML page and the authorize pages' security headers (CSP, no framing, no-store, no referrer). */
export function sendAdminHtml(ctx: SiteContext, status: number, html: string, headers: Readonly<Record<string, string>> = {}): void {
  setPageSecurityHeaders(ctx);
  ctx.set(headers);
  ctx.status = status;
  ctx.body = html;
  ctx.type = 'text/html; charset=utf-8';
}

/** 303 See Other to a page of this origin (after a form post), with the same headers. */
export function redirectWithinAdmin(ctx: SiteContext, path: string): void {
  setPageSecurityHeaders(ctx);
  ctx.status = 303;
  ctx.set('Location', path);
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = `See ${path}`;
}

export class AdminPageError extends PageError {}

export function csrfFailure(): AdminPageError {
  return new AdminPageError(403, 'csrf_check_failed', 'This page has expired', 'The form could not be verified (its security token is missing or belongs to another session). Open the page again and resubmit.');
}

/** The posted form, `application/x-www-form-urlencoded` only; repeated fields are kept (the scopes checkboxes). */
export async function readAdminForm(ctx: SiteContext): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new AdminPageError(400, 'invalid_request', 'This form cannot be read', 'The form must be posted as application/x-www-form-urlencoded.');
  const read = await readBodyBytes(ctx.req, { limit: DEFAULT_BODY_LIMIT, decodeContentEncoding: true });
  if (read.kind !== 'bytes') throw readFailureError(read);
  return parseFormFields(bodyText(read.bytes));
}

/** A field that may appear at most once. */
export function single(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1) throw new AdminPageError(400, 'invalid_request', 'This form cannot be read', `The field ${name} was sent more than once.`);
  return values[0];
}

/** The sign-in page, with a session (anonymous if need be) whose CSRF secret protects the form. */
export async function showSignIn(
  ctx: SiteContext,
  db: Database,
  options: { status?: number; returnTo: string; email?: string | null; error?: string | null; notice?: string | null; session?: SignInSession | null },
): Promise<void> {
  const site = ctx.state.site;
  const session = options.session ?? (await findBrowserSession(ctx, db, site))?.session ?? (await startBrowserSession(ctx, db, site)).session;
  const html = adminSignInPage({
    chrome: chromeFor(site, null, null),
    csrfToken: sessionCsrfToken(session, SIGN_IN_CSRF),
    returnTo: options.returnTo,
    email: options.email ?? null,
    error: options.error ?? null,
    notice: options.notice ?? null,
  });
  sendAdminHtml(ctx, options.status ?? 200, html);
}

function renderError(ctx: SiteContext, raw: unknown, chrome: AdminChrome): void {
  const error = toAppError(raw);
  if (error.status >= 500) logFailure(ctx.state.log, raw, 'admin page failed');
  const title = error instanceof PageError ? error.title : error.status >= 500 ? 'Something went wrong' : 'This cannot be done';
  const message = error.status >= 500 && error.status !== 503 ? 'The server could not complete this step. Try again in a moment.' : error.message;
  sendAdminHtml(ctx, error.status, errorPageHtml(chrome, title, message, error.code), error.headers);
}

/**
 * An admin page or form target for signed-in operators. A GET without such a session shows the sign-in page (and
 * comes back here afterwards); a POST without it, or without the form's CSRF token, is a 403 page.
 */
export function operatorPage(db: Database, handler: (page: AdminPageContext) => Promise<void>): Middleware<SiteState> {
  return async (ctx) => {
    const site = ctx.state.site;
    let chrome = chromeFor(site, null, null);
    try {
      const isPost = ctx.method === 'POST';
      const form = isPost ? await readAdminForm(ctx) : new URLSearchParams();
      const found = await findBrowserSession(ctx, db, site);
      const session = found?.session ?? null;
      const user = isSignedIn(session) ? await getUserAt(db, site.id, session.userId) : null;
      const roles = isSignedIn(session) ? await rolesAt(db, site.id, session.userId) : [];
      if (isPost) {
        if (!session || !sessionCsrfTokenMatches(session, AREA_CSRF, single(form, 'csrf_token'))) throw csrfFailure();
      }
      if (!isSignedIn(session) || !user || !isOperator(roles)) {
        if (isPost) throw new AdminPageError(403, 'sign_in_required', 'Sign in again', 'You are no longer signed in as an operator of this school. Sign in again, then repeat the change.');
        const notice = user ? `You are signed in as ${user.name} (${user.email}), who is not an owner, operator or staff member of ${site.name}. Sign in with an operator account.` : null;
        await showSignIn(ctx, db, { returnTo: ctx.originalUrl, notice, session });
        return;
      }
      chrome = chromeFor(site, user, session);
      await handler({ ctx, db, site, session, user, roles, chrome, form });
    } catch (error) {
      renderError(ctx, error, chrome);
    }
  };
}

/** Error pages for the routes outside operatorPage (sign-in, sign-out). */
export function adminErrorPage(ctx: SiteContext, error: unknown): void {
  renderError(ctx, error, chromeFor(ctx.state.site, null, null));
}
