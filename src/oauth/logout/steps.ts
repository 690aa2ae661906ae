import { sessionCsrfToken, sessionCsrfTokenMatches } from '../../accounts/csrf.js';
import { isSignedIn } from '../../accounts/sessions.js';
import { getUserAt } from '../../accounts/users.js';
import { findClientWithSecret } from '../../clients/clients.js';
import { toAppError } from '../../http/errors.js';
import { findBrowserSession } from '../../http/browser-session.js';
import { readSessionCookies } from '../../http/cookies.js';
import { readForm, readQuery } from '../parameters.js';
import { setPageSecurityHeaders } from '../../http/security-headers.js';
import { CsrfError, PageError } from '../authorize/errors.js';
import { errorPage } from '../authorize/pages/error-page.js';
import { step } from '../authorize/pipeline.js';
import { InvalidIdTokenHint, readIdTokenHint } from './id-token-hint.js';
import type { LogoutFlow } from './flow.js';
import { signedOutPage, signOutConfirmationPage } from './pages.js';
import { LOGOUT_PATHS } from './paths.js';
import { signOutSession } from './sign-out.js';
import { logFailure } from '../../shared/failure-log.js';

/** A logout request that cannot be trusted: shown as a page, never redirected (RP-Initiated Logout 1.0 3). */
export class UntrustedLogoutError extends PageError {
  constructor(message: string) {
    super(400, 'invalid_request', 'This sign-out link is not valid', message);
  }
}

/** Browsers and proxies take request targets of 8 KiB; an id_token_hint is well under 2 KiB. */
const MAX_RETRY_LOCATION = 8 * 1024;

/** The CSRF token of the confirmation form: bound to the session's secret, for this purpose only. */
const CSRF_PURPOSE = 'end-session';

function sendPage(flow: LogoutFlow, status: number, page: string, headers: Readonly<Record<string, string>> = {}): void {
  const { ctx } = flow;
  setPageSecurityHeaders(ctx);
  ctx.set(headers);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page;
  flow.finished = true;
}

/** Any failure is a page: until the redirect URI is verified nothing may go back to the application, and after it an error is still the member's business. */
export function respondWithLogoutError(flow: LogoutFlow, raw: unknown): void {
  const error = toAppError(raw);
  if (error.status >= 500) logFailure(flow.ctx.state.log, raw, 'logout page failed');
  const title = error instanceof PageError ? error.title : error.status >= 500 ? 'Something went wrong' : 'This sign-out link is not valid';
  const message = error.status >= 500 && error.status !== 503 ? 'The server could not complete this step. Try again in a moment.' : error.message;
  sendPage(flow, error.status, errorPage(flow.site, title, message, error.code), error.headers);
}

/** RP-Initiated Logout 1.0 2: GET query or POST form, each parameter at most once (RFC 6749 3.1 as elsewhere). */
export const readLogoutParameters = step<LogoutFlow>('read the logout parameters', (flow) => {
  const { ctx } = flow;
  flow.params = ctx.method === 'POST' ? readForm(ctx) : readQuery(ctx.querystring);
});

/** RP-Initiated Logout 1.0 2: the OP MUST validate that it issued the id_token_hint. */
export const verifyIdTokenHint = step<LogoutFlow>('verify the id_token_hint', async (flow) => {
  const hint = flow.params.get('id_token_hint');
  if (hint === undefined) return;
  try {
    flow.hint = await readIdTokenHint(flow.db, flow.site, hint);
  } catch (error) {
    if (error instanceof InvalidIdTokenHint) throw new UntrustedLogoutError(`${error.message}.`);
    throw error;
  }
});

/** RP-Initiated Logout 1.0 2: client_id, when given with a hint, must be the hint's audience. */
export const identifyClient = step<LogoutFlow>('identify the client', async (flow) => {
  const named = flow.params.get('client_id');
  if (named !== undefined && flow.hint !== null && named !== flow.hint.clientId) {
    throw new UntrustedLogoutError('The client_id does not match the application the id_token_hint was issued to.');
  }
  const clientId = named ?? flow.hint?.clientId;
  if (clientId === undefined) return;
  const found = await findClientWithSecret(flow.db, flow.site.id, clientId);
  if (!found) throw new UntrustedLogoutError(`The application ${clientId} is not known at ${flow.site.name}.`);
  flow.client = found.client;
});

/**
 * RP-Initiated Logout 1.0 3: post_logout_redirect_uri must exactly match (simple string comparison) one the client
 * registered, so the client must be known; anything else is a page and never a redirect (no open redirector).
 */
export const checkPostLogoutRedirectUri = step<LogoutFlow>('check post_logout_redirect_uri', (flow) => {
  const uri = flow.params.get('post_logout_redirect_uri');
  if (uri === undefined) return;
  if (flow.client === null) throw new UntrustedLogoutError('A post_logout_redirect_uri needs the application to be named, with client_id or id_token_hint.');
  if (!flow.client.postLogoutRedirectUris.includes(uri)) {
    throw new UntrustedLogoutError(`The post_logout_redirect_uri is not one that ${flow.client.name} registered; you were not sent back to the application.`);
  }
  flow.redirect = { uri, state: flow.params.get('state') ?? null };
});

/**
 * A POST from the application's page is a cross-site POST: a SameSite=Lax session cookie does not come with it, so the
 * session cannot be seen. A 303 to the same request as a GET (a top-level navigation, which does carry the cookie)
 * lets the browser ask again with it.
 */
export const retryCookielessPostAsGet = step<LogoutFlow>('retry a cookieless POST as a GET', (flow) => {
  const { ctx } = flow;
  if (ctx.method !== 'POST' || readSessionCookies(ctx, flow.site.origin).length > 0) return;
  const location = `${LOGOUT_PATHS.endSession}?${new URLSearchParams([...flow.params]).toString()}`;
  if (location.length > MAX_RETRY_LOCATION) throw new UntrustedLogoutError('This sign-out request is too long to continue. Return to the application and try again.');
  setPageSecurityHeaders(ctx);
  ctx.status = 303;
  ctx.set('Location', location);
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = 'Continuing the sign-out.';
  flow.finished = true;
});

export const loadSignedInSession = step<LogoutFlow>('load the browser session', async (flow) => {
  const found = await findBrowserSession(flow.ctx, flow.db, flow.site);
  flow.session = found && isSignedIn(found.session) ? found.session : null;
});

/** Nobody is signed in: done, back to the application when it may be. */
export const finishWhenSignedOut = step<LogoutFlow>('finish when nobody is signed in', (flow) => {
  if (flow.session === null) finishSignedOut(flow);
});

/** The hint names this session (its member, and its sid when the hint has one): the request is the member's own. */
export const signOutWhenHintMatches = step<LogoutFlow>('sign out when the hint names this session', async (flow) => {
  const { hint, session } = flow;
  if (hint === null || session === null) return;
  if (hint.sub !== String(session.userId) || (hint.sid !== null && hint.sid !== session.sid)) return;
  await signOutSession(flow.db, session);
  finishSignedOut(flow);
});

/** No hint, or one for another session: ask (RP-Initiated Logout 1.0 2, a request anyone could have sent). */
export const askForConfirmation = step<LogoutFlow>('ask the member to confirm', async (flow) => {
  const session = flow.session;
  if (session === null) return;
  const user = await getUserAt(flow.db, flow.site.id, session.userId);
  sendPage(
    flow,
    200,
    signOutConfirmationPage({
      site: flow.site,
      email: user.email,
      clientName: flow.client?.name ?? null,
      csrfToken: sessionCsrfToken(session, CSRF_PURPOSE),
      clientId: flow.client?.clientId ?? null,
      postLogoutRedirectUri: flow.redirect?.uri ?? null,
      state: flow.redirect?.state ?? null,
    }),
  );
});

export const checkConfirmationCsrf = step<LogoutFlow>('check the confirmation CSRF token', (flow) => {
  if (flow.session === null) return;
  if (!sessionCsrfTokenMatches(flow.session, CSRF_PURPOSE, flow.params.get('csrf_token'))) {
    throw new CsrfError('This sign-out page has expired or was not opened here. Nothing was changed: you are still signed in.');
  }
});

export const signOut = step<LogoutFlow>('sign out', async (flow) => {
  if (flow.session !== null) await signOutSession(flow.db, flow.session);
  finishSignedOut(flow);
});

/** RP-Initiated Logout 1.0 3: back to the verified post_logout_redirect_uri with `state`, or the signed-out page. */
function finishSignedOut(flow: LogoutFlow): void {
  const { ctx } = flow;
  if (flow.redirect === null) {
    sendPage(flow, 200, signedOutPage(flow.site, flow.client?.name ?? null));
    return;
  }
  setPageSecurityHeaders(ctx);
  ctx.status = ctx.method === 'POST' ? 303 : 302;
  ctx.set('Location', postLogoutRedirectUrl(flow.redirect.uri, flow.redirect.state));
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = 'Signed out; returning to the application.';
  flow.finished = true;
}

/** The registered URI as registered, plus `state` when the request had one. */
export function postLogoutRedirectUrl(uri: string, state: string | null): string {
  if (state === null) return uri;
  const [base = uri, fragment] = uri.split('#', 2);
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${new URLSearchParams({ state }).toString()}${fragment === undefined ? '' : `#${fragment}`}`;
}
