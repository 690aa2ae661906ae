import type { Middleware } from 'koa';
import { signInOnSession } from '../../accounts/sessions.js';
import { signInWithPassword } from '../../accounts/sign-in.js';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { setSessionCookie } from './browser-session.js';
import { pageEndpoint } from './endpoint.js';
import { CsrfError, TooManyAttemptsError } from './errors.js';
import { need, type AuthorizeFlow } from './flow.js';
import { step } from './pipeline.js';
import { checkCsrfToken, checkMayAuthorize, loadBrowserSession, loadPendingAuthorization, readPageForm, reloadClient, showConsent, showSignInPage } from './shared-steps.js';

/** Said for every failure, so the page never tells whether an account exists (no account enumeration). */
export const SIGN_IN_FAILED_MESSAGE = 'The email or password is not correct.';

/** Rate limits per account and per address (src/accounts/sign-in.ts), then the scrypt check. */
const checkCredentials = step<AuthorizeFlow>('check the email and password', async (flow) => {
  const form = need(flow, 'form');
  const email = (form.get('email') ?? '').trim();
  const password = form.get('password') ?? '';
  if (email === '' || password === '') {
    showSignInPage(flow, { status: 400, email, error: 'Enter your email and password.' });
    return;
  }
  const outcome = await signInWithPassword(flow.db, { siteId: flow.site.id, email, password, clientAddress: flow.ctx.ip });
  if (outcome.kind === 'rate_limited') throw new TooManyAttemptsError(outcome.retryAfterSeconds);
  if (outcome.kind === 'invalid_credentials') {
    flow.ctx.state.log.info({ event: 'sign_in_failed' }, 'sign-in failed');
    showSignInPage(flow, { status: 400, email, error: SIGN_IN_FAILED_MESSAGE });
    return;
  }
  flow.user = outcome.user;
});

/** A new session token and CSRF secret on sign-in (no session fixation); the cookie now lasts the signed-in lifetime. */
const startSignedInSession = step<AuthorizeFlow>('start the signed-in session', async (flow) => {
  const signedIn = await signInOnSession(flow.db, need(flow, 'session'), need(flow, 'sessionToken'), need(flow, 'user').id);
  if (!signedIn) throw new CsrfError('This sign-in page was used in another tab or has expired. Return to the application and start again.');
  setSessionCookie(flow, signedIn.token, signedIn.session);
  flow.ctx.state.log.info({ event: 'signed_in', userId: signedIn.session.userId }, 'signed in');
});

/** POST /oauth/authorize/sign-in: the sign-in form. */
export const SIGN_IN_STEPS = [
  readPageForm,
  loadBrowserSession,
  checkCsrfToken,
  loadPendingAuthorization,
  reloadClient,
  checkCredentials,
  startSignedInSession,
  checkMayAuthorize,
  showConsent,
];

export function signInEndpoint(services: Services): Middleware<SiteState> {
  return pageEndpoint(services, SIGN_IN_STEPS);
}
