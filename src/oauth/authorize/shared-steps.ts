import { rolesAt } from '../../accounts/roles.js';
import { isSignedIn } from '../../accounts/sessions.js';
import { getUserAt } from '../../accounts/users.js';
import { cspSourceForUri } from '../../http/security-headers.js';
import { AccessDeniedError } from '../errors.js';
import { readForm } from '../parameters.js';
import { resolvePageClient } from './page-client.js';
import { refusalReason } from './access-policy.js';
import { bindToSession, findAuthorizationRequest } from './authorization-requests.js';
import { findBrowserSession } from './browser-session.js';
import { csrfToken, csrfTokenMatches } from './csrf.js';
import { CsrfError, RequestGoneError, UntrustedRequestError } from './errors.js';
import { need, type AuthorizeFlow } from './flow.js';
import { consentPage } from './pages/consent-page.js';
import { signInPage } from './pages/sign-in-page.js';
import { step } from './pipeline.js';
import { sendPage } from './respond.js';

/** Steps shared by the endpoints behind the authorize pages' forms. */

/** The form body: application/x-www-form-urlencoded, each field once (the readForm rules of every OAuth endpoint). */
export const readPageForm = step<AuthorizeFlow>('read the form', (flow) => {
  flow.form = readForm(flow.ctx);
});

/** The session cookie set with the page must come back; a cross-site post carries none (SameSite=Lax). */
export const loadBrowserSession = step<AuthorizeFlow>('load the browser session', async (flow) => {
  const found = await findBrowserSession(flow);
  if (!found) {
    throw new CsrfError(`Your browser did not send the sign-in cookie of ${flow.site.origin}, or the page was open too long. Make sure cookies are allowed for this site, then return to the application and start again.`);
  }
  flow.session = found.session;
  flow.sessionToken = found.token;
});

export const requireSignedInSession = step<AuthorizeFlow>('require a signed-in session', (flow) => {
  if (!isSignedIn(flow.session)) throw new CsrfError('You are no longer signed in. Return to the application and start again.');
});

/** Synchronizer token: the form's csrf_token must be the one derived from this session and this request's handle. */
export const checkCsrfToken = step<AuthorizeFlow>('check the CSRF token', (flow) => {
  const form = need(flow, 'form');
  const handle = form.get('handle');
  if (handle === undefined) throw new RequestGoneError('The form does not say which authorization it belongs to. Return to the application and start again.');
  if (!csrfTokenMatches(need(flow, 'session'), handle, form.get('csrf_token'))) {
    throw new CsrfError('The form could not be verified (missing or wrong security token). Return to the application and start again.');
  }
  flow.handle = handle;
});

/** The saved request: this site's, not expired, not finished (single use). From here errors go back to the client. */
export const loadPendingAuthorization = step<AuthorizeFlow>('load the authorization request', async (flow) => {
  const request = await findAuthorizationRequest(flow.db, flow.site.id, need(flow, 'handle'));
  if (!request) throw new RequestGoneError('This authorization request is unknown here. Return to the application and start again.');
  if (request.completedAt !== null) throw new RequestGoneError('This authorization was already completed; each one can be answered once. Return to the application to continue.');
  if (request.expiresAt.getTime() <= Date.now()) throw new RequestGoneError('This page was open too long and has expired. Return to the application and start again.');
  flow.request = request;
  const { redirectUri, state } = request.parameters;
  flow.redirect = { redirectUri, state, iss: flow.site.origin };
  const source = cspSourceForUri(redirectUri);
  if (source) flow.formActionSources.push(source);
});

/** The client of the saved request, still registered (the same row) at this site. */
export const reloadClient = step<AuthorizeFlow>('reload the client', async (flow) => {
  const request = need(flow, 'request');
  const resolved = await resolvePageClient(flow.db, flow.site, request.parameters.clientId);
  if (!resolved || resolved.client.ref !== request.clientRef) throw new UntrustedRequestError('The application of this authorization is no longer registered at this site.');
  flow.client = resolved.client;
  flow.ctx.state.clientId = resolved.client.clientId;
});

/** Spec, Authentication 4-5: a member client needs any role at the site; an operator client an operator role. */
export const checkMayAuthorize = step<AuthorizeFlow>('check the user may authorize this client', async (flow) => {
  const session = need(flow, 'session');
  if (!isSignedIn(session)) throw new CsrfError('You are not signed in. Return to the application and start again.');
  const reason = refusalReason(need(flow, 'client'), await rolesAt(flow.db, flow.site.id, session.userId), flow.site.name);
  if (reason) throw new AccessDeniedError(reason);
});

/** Renders the sign-in page for the flow's request and session. */
export function showSignInPage(flow: AuthorizeFlow, options: { status?: number; email?: string | null; error?: string | null; notice?: string | null } = {}): void {
  const request = need(flow, 'request');
  const html = signInPage({
    site: flow.site,
    clientName: need(flow, 'client').name,
    handle: need(flow, 'handle'),
    csrfToken: csrfToken(need(flow, 'session'), need(flow, 'handle')),
    email: options.email ?? request.parameters.loginHint,
    error: options.error ?? null,
    notice: options.notice ?? null,
  });
  sendPage(flow, options.status ?? 200, html);
}

/** Renders the consent page and records that this session was shown it (only it may answer). */
export async function showConsentPage(flow: AuthorizeFlow): Promise<void> {
  const session = need(flow, 'session');
  if (!isSignedIn(session)) throw new CsrfError('You are not signed in. Return to the application and start again.');
  const request = need(flow, 'request');
  const user = flow.user ?? (await getUserAt(flow.db, flow.site.id, session.userId));
  await bindToSession(flow.db, request.id, session.id);
  const html = consentPage({
    site: flow.site,
    client: need(flow, 'client'),
    scopes: request.parameters.scopes,
    redirectUri: request.parameters.redirectUri,
    user,
    handle: need(flow, 'handle'),
    csrfToken: csrfToken(session, need(flow, 'handle')),
  });
  sendPage(flow, 200, html);
}

export const showConsent = step<AuthorizeFlow>('show the consent page', showConsentPage);
