import type { Middleware } from 'koa';
import type { SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { runSteps, type Step } from '../authorize/pipeline.js';
import { newLogoutFlow, type LogoutFlow } from './flow.js';
import {
  askForConfirmation,
  checkConfirmationCsrf,
  checkPostLogoutRedirectUri,
  finishWhenSignedOut,
  identifyClient,
  loadSignedInSession,
  readLogoutParameters,
  respondWithLogoutError,
  retryCookielessPostAsGet,
  signOut,
  signOutWhenHintMatches,
  verifyIdTokenHint,
} from './steps.js';

/** GET or POST /oauth/logout: the end_session_endpoint (OIDC RP-Initiated Logout 1.0 2, 3). */
export const END_SESSION_STEPS = [
  readLogoutParameters,
  verifyIdTokenHint,
  identifyClient,
  checkPostLogoutRedirectUri,
  retryCookielessPostAsGet,
  loadSignedInSession,
  finishWhenSignedOut,
  signOutWhenHintMatches,
  askForConfirmation,
];

/** POST /oauth/logout/confirm: the member's "Sign out" on the confirmation page; the request is checked again. */
export const CONFIRM_STEPS = [readLogoutParameters, identifyClient, checkPostLogoutRedirectUri, loadSignedInSession, finishWhenSignedOut, checkConfirmationCsrf, signOut];

function logoutEndpoint(services: Services, steps: readonly Step<LogoutFlow>[]): Middleware<SiteState> {
  return async (ctx) => {
    const flow = newLogoutFlow(ctx, services.db);
    try {
      await runSteps(flow, steps);
      if (!flow.finished) throw new Error('the logout steps ended without an answer');
    } catch (error) {
      respondWithLogoutError(flow, error);
    }
  };
}

export function endSessionEndpoint(services: Services): Middleware<SiteState> {
  return logoutEndpoint(services, END_SESSION_STEPS);
}

export function confirmSignOutEndpoint(services: Services): Middleware<SiteState> {
  return logoutEndpoint(services, CONFIRM_STEPS);
}
