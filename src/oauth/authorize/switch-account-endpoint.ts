import type { Middleware } from 'koa';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { signOutSession } from '../logout/sign-out.js';
import { startBrowserSession } from './browser-session.js';
import { pageEndpoint } from './endpoint.js';
import { need, type AuthorizeFlow } from './flow.js';
import { step } from './pipeline.js';
import { checkCsrfToken, loadBrowserSession, loadPendingAuthorization, readPageForm, reloadClient, showSignInPage } from './shared-steps.js';

/**
 * Ends the current session (its cookie stops working; the applications it approved get their back-channel logout
 * notice) and starts an anonymous one for the sign-in form.
 */
const signOut = step<AuthorizeFlow>('sign out', async (flow) => {
  await signOutSession(flow.db, need(flow, 'session'));
  await startBrowserSession(flow);
});

const showSignIn = step<AuthorizeFlow>('show the sign-in page', (flow) => showSignInPage(flow, { email: '' }));

/** POST /oauth/authorize/switch-account: "Not you? Sign in as someone else" on the consent page. */
export const SWITCH_ACCOUNT_STEPS = [readPageForm, loadBrowserSession, checkCsrfToken, loadPendingAuthorization, reloadClient, signOut, showSignIn];

export function switchAccountEndpoint(services: Services): Middleware<SiteState> {
  return pageEndpoint(services, SWITCH_ACCOUNT_STEPS);
}
